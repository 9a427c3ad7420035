/**
 * A notifier actor's round (webhook and email alike): when told there is work, or when a held
 * group falls due, it asks the core for the notifications due, sends each and reports how it
 * went. The core keeps the log, cooldowns and groups; a notifier only sends.
 */
import {
  NotifyClaimResponse,
  type NotificationJob,
  type NotificationOutcome,
} from '../../protocol/notify-protocol.js';
import type { Actor, CoreClient } from '../../protocol/worker-host/host.js';

export type SendJob = (
  job: NotificationJob,
  signal: AbortSignal,
  /** Called after each failed attempt that will be tried again. */
  onRetry: (attempts: number, error: string) => Promise<void>,
) => Promise<Omit<NotificationOutcome, 'notification_id' | 'grouped'>>;

export function notifierActor(core: CoreClient, send: SendJob): Actor {
  const stopping = new AbortController();
  let running: Promise<void> | undefined;
  let again = false;
  let dueTimer: NodeJS.Timeout | undefined;

  const sendOne = async (job: NotificationJob) => {
    // Each failed attempt shows on the log row while the retries go on (a test notification is
    // answered after its first attempt, from that row).
    const outcome = await send(job, stopping.signal, async (attempts, error) => {
      await core.ask({ type: 'notify_progress', notification_id: job.notification_id, attempts, error });
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
      await Promise.all(answer.jobs.map(sendOne));
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
}
