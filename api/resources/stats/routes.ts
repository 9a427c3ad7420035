/** GET /stats (spec 2.13): counts over the message flow and the instances of this process. */
import { listInstances } from '../../../runtime/supervisor/instance-config.js';
import { failedStatuses, inFlightStatuses } from '../../../runtime/dispatch/status.js';
import type { ServiceStatus } from '../../../runtime/lifecycle/states.js';
import { freshEm, runtimeOf, type ApiContext } from '../../context.js';
import type { ApiRouter } from '../../http/router.js';
import { StatsRecord } from '../../schemas/stats.js';

/** More failed messages than this in 24 hours make the system Degraded (spec 8). */
const degradedThreshold = 10;

const shown: Record<ServiceStatus, 'Running' | 'Stopped' | 'Error'> = {
  running: 'Running',
  stopping: 'Running',
  starting: 'Stopped',
  stopped: 'Stopped',
  error: 'Error',
};

const day = 24 * 60 * 60 * 1000;

async function stats(ctx: ApiContext): Promise<StatsRecord> {
  const em = freshEm(ctx);
  const conn = em.getConnection();
  const now = ctx.now().getTime();
  const since24h = new Date(now - day);
  const since7d = new Date(now - 7 * day);
  const [counts] = await conn.execute<{ sent: string; received: string; week: string }[]>(
    `select count(*) filter (where created_at >= ? and direction = 'outbound') as sent,
            count(*) filter (where created_at >= ? and direction = 'inbound') as received,
            count(*) as week
       from message where created_at >= ?`,
    [since24h, since24h, since7d],
  );
  const [flight] = await conn.execute<{ n: string }[]>(
    'select count(*) as n from message where status = any(?::text[])',
    [`{${inFlightStatuses.join(',')}}`],
  );
  const [failed] = await conn.execute<{ n: string }[]>(
    `select count(distinct message_id) as n from message_history
      where kind = 'status_changed' and new_status = any(?::text[]) and created_at >= ?`,
    [`{${failedStatuses.join(',')}}`, since24h],
  );
  const supervisor = runtimeOf(ctx).supervisor;
  const plugin_status: StatsRecord['plugin_status'] = {};
  for (const instance of await listInstances(em)) {
    const key = `${instance.type}:${instance.name}`;
    const here = supervisor.statusOf(instance.type, instance.name);
    if (here) plugin_status[key] = shown[here.status];
    else if (supervisor.runs(instance.type)) plugin_status[key] = 'Stopped';
    else if (instance.enabled) plugin_status[key] = 'Enabled';
  }
  const sent = Number(counts?.sent ?? 0);
  const received = Number(counts?.received ?? 0);
  const failedCount = Number(failed?.n ?? 0);
  return {
    messages_last_24h: sent + received,
    sent_last_24h: sent,
    received_last_24h: received,
    messages_last_7d: Number(counts?.week ?? 0),
    in_flight_messages: Number(flight?.n ?? 0),
    failed_last_24h: failedCount,
    system_status: failedCount > degradedThreshold ? 'Degraded' : 'Healthy',
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
