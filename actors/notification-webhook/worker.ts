/**
 * The webhook notifier actor: when told there is work (or when a held group falls due), asks
 * the core for the notifications due, sends each (send.ts) and reports how it went.
 */
import { NotifyClaimResponse, type NotificationJob } from '../../protocol/notify-protocol.js';
import { runActor } from '../../protocol/worker-host/host.js';
import { parseSettings } from '../shared/settings.js';
import {
  notificationWebhookType,
  type NotificationWebhookSecrets,
  type NotificationWebhookSettings,
} from './config.js';
import { sendNotification } from './send.js';

runActor(async (start, core) => {
  const settings = parseSettings<NotificationWebhookSettings>(notificationWebhookType, start.settings);
  const secrets = start.secrets as unknown as NotificationWebhookSecrets;
  const stopping = new AbortController();
  let running: Promise<void> | undefined;
  let again = false;
  let dueTimer: NodeJS.Timeout | undefined;

  const send = async (job: NotificationJob) => {
    const outcome = await sendNotification(settings, secrets, job, {
      userAgent: start.user_agent,
      signal: stopping.signal,
    });
    // Stopped mid-way: the claim runs out and the notification is sent again by whoever runs next.
    if (stopping.signal.aborted) return;
    await core.ask({
      type: 'notify_result',
      notification_id: job.notification_id,
      grouped: job.grouped,
      ...outcome,
    });
  };

  const round = async () => {
    do {
      again = false;
      const answer = NotifyClaimResponse.parse(await core.ask({ type: 'notify_claim', limit: 20 }));
      await Promise.all(answer.jobs.map(send));
      if (answer.jobs.length > 0) again = true;
      clearTimeout(dueTimer);
      if (answer.next_due_ms !== null && !stopping.signal.aborted) {
        dueTimer = setTimeout(poke, Math.max(answer.next_due_ms, 50));
      }
    } while (again && !stopping.signal.aborted);
  };

  function poke(): void {
    if (stopping.signal.aborted) return;
    if (running) {
      again = true;
      return;
    }
    running = round()
      .catch((error: unknown) => core.log('error', 'sending notifications failed', { error: String(error) }))
      .finally(() => (running = undefined));
  }

  // Due notifications left by an earlier run are sent once the actor has reported ready.
  setImmediate(poke);
  return {
    onWork: poke,
    async stop() {
      stopping.abort();
      clearTimeout(dueTimer);
      await running;
    },
  };
});
