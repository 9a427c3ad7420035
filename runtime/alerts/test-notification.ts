/**
 * A notifier's test notification (POST /plugins/configs/notification-webhook/{name}/test, and
 * …/notification-email/{name}/test): logged as a row with `test: true`, and sent by the
 * notifier's own worker, in a thread run once for it with the settings as saved (whether or not
 * the instance runs), which claims and reports that notification as a notifier claims and
 * reports every other (Supervisor.runOnce). The answer comes after the first attempt:
 * delivered, failed for good, or still queued with that attempt's error while the thread goes
 * on with the retries (with the defaults they take over a minute; nobody waits that long).
 */
import type { InstanceConfig } from '../../actors/shared/definition.js';
import { alertLinks } from '../../flow/alerts/links.js';
import type { CoreRequest, CoreResponse } from '../../protocol/core-protocol.js';
import type { Orm } from '../../storage/db.js';
import { direct } from '../../storage/sql.js';
import type { Supervisor } from '../supervisor/supervisor.js';
import { alertOfRow, isoSql, leaseSeconds, type Notifications } from './notifications.js';
import { limits } from '../../limits/limits.js';

export async function sendTestNotification(
  deps: {
    orm: Orm;
    now: () => Date;
    publicUrl: string;
    supervisor: Supervisor;
    notifications: Notifications;
  },
  config: InstanceConfig,
): Promise<number> {
  const at = deps.now();
  const email = config.type === 'notification-email';
  const format = email ? 'email' : String(config.settings.format);
  const key = `${config.type}:${config.name}`;
  // Leased to this run until its attempts are over, so a running notifier does not send it too.
  const leasedUntil = new Date(at.getTime() + leaseSeconds(config.settings) * 1000);
  const [row] = await direct(deps.orm).all<Parameters<typeof alertOfRow>[0]>(
    `with alert_row as (
       insert into alert (code, severity, subject_kind, subject_id, subject_name, summary, details, dedupe_key,
                          link, instance, raised_at, occurrence)
       values ('test', 'info', 'plugin-instance', ?, ?, ?, '{}'::jsonb, ?, ?, ?, ?, '')
       returning *
     ), logged as (
       insert into notification (alert_id, instance, format, test, outcome, created_at, send_after, claimed_until)
       select id, ?, ?, true, 'queued', ?, ?, ? from alert_row returning id
     )
     select l.id, true as test, a.id as alert_id, a.code, a.severity, a.subject_kind, a.subject_id, a.subject_name,
            a.summary, a.details, a.dedupe_key, a.link, ${isoSql('a.raised_at')} as raised_at, a.instance
       from logged l, alert_row a`,
    [
      key,
      config.name,
      `Test notification from pier to ${config.name}`,
      `test:${config.name}`,
      alertLinks.instance(config.type, config.name),
      key,
      at,
      config.name,
      format,
      at,
      at,
      leasedUntil,
    ],
  );
  const id = Number(row!.id);
  const job = { notification_id: id, grouped: [], test: true, alerts: [alertOfRow(row!, deps.publicUrl)] };
  const timeoutSeconds =
    typeof config.settings.timeout_seconds === 'number' ? config.settings.timeout_seconds : 10;
  const attempted = deps.notifications.firstAttempt(
    id,
    timeoutSeconds * 1000 + limits.testNotificationStartUpMs,
  );
  const settled = deps.notifications.settled(id, leasedUntil.getTime() - at.getTime());
  const ref = { type: config.type, name: config.name, settings: config.settings };
  let handedOut = false;
  // The worker's notifier round asks for work: this notification once, then nothing more.
  const answer = async (request: CoreRequest): Promise<CoreResponse> => {
    if (request.type === 'notify_claim') {
      const jobs = handedOut ? [] : [job];
      handedOut = true;
      return { type: 'notify_claimed', jobs, next_due_ms: null };
    }
    if (request.type === 'notify_progress' || request.type === 'notify_result')
      return deps.notifications.answer(ref, request);
    throw new Error(`${config.type} workers do not ask ${request.type}`);
  };
  try {
    await deps.supervisor.runOnce(config.type, config.name, answer, settled);
  } catch (error) {
    // It could not start (a setting it refuses, the process stopping): the row says why.
    const reason = error instanceof Error ? error.message : String(error);
    await deps.notifications.record({
      notification_id: id,
      grouped: [],
      ok: false,
      attempts: 0,
      error: `the ${config.type} could not start: ${reason}`,
    });
  }
  await attempted;
  return id;
}
