/** GET /stats (docs/api/stats.md): counts over the message flow and the instances of this process. */
import { listInstances, openAlerts, type ServiceStatus } from '../../../runtime/index.js';
import { failedStatuses, inFlightStatuses } from '../../../flow/tables/status.js';
import { statsCounts } from '../../../storage/repositories/message-counts.js';
import { freshEm, runtimeOf, type ApiContext } from '../../context.js';
import type { ApiRouter } from '../../http/router.js';
import { StatsRecord } from '../../schemas/stats.js';
import { limits } from '../../../limits/limits.js';

const shown: Record<ServiceStatus, 'Running' | 'Stopped' | 'Error'> = {
  running: 'Running',
  stopping: 'Running',
  starting: 'Stopped',
  stopped: 'Stopped',
  error: 'Error',
};

async function stats(ctx: ApiContext): Promise<StatsRecord> {
  const em = freshEm(ctx);
  const counts = await statsCounts(em, ctx.now(), { inFlight: inFlightStatuses, failed: failedStatuses });
  const { sent, received, week, inFlight, retrying } = counts;
  const failedCount = counts.failed;
  const supervisor = runtimeOf(ctx).supervisor;
  const plugin_status: StatsRecord['plugin_status'] = {};
  for (const instance of await listInstances(em)) {
    const key = `${instance.type}:${instance.name}`;
    const here = supervisor.statusOf(instance.type, instance.name);
    if (here) plugin_status[key] = shown[here.status];
    else if (supervisor.runs(instance.type)) plugin_status[key] = 'Stopped';
    else if (instance.enabled) plugin_status[key] = 'Enabled';
  }
  return {
    messages_last_24h: sent + received,
    sent_last_24h: sent,
    received_last_24h: received,
    messages_last_7d: week,
    in_flight_messages: inFlight,
    retrying_messages: retrying,
    failed_last_24h: failedCount,
    system_status: failedCount > limits.degradedFailedMessages ? 'Degraded' : 'Healthy',
    open_alerts: await openAlerts(em, ctx.options.publicUrl),
    plugin_status,
  };
}

export function registerStatsRoutes(router: ApiRouter, ctx: ApiContext): void {
  router.add({
    method: 'GET',
    url: '/stats',
    tag: 'Stats',
    summary: 'Message counts, failures and instance status',
    response: StatsRecord,
    handler: () => stats(ctx),
  });
}
