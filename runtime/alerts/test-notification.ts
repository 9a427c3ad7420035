/**
 * A notifier's test notification (POST /plugins/configs/notification-webhook/{name}/test, and
 * …/notification-email/{name}/test):
 * logged as a row with `test: true`, sent now from the asking process with the instance's
 * stored settings (whether or not the instance runs), and answered after the first attempt:
 * delivered, failed for good, or still queued with that attempt's error while the retries go
 * on in the background (with the defaults they take over a minute; nobody waits that long for
 * an answer).
 */
import type {
  NotificationEmailSecrets,
  NotificationEmailSettings,
} from '../../actors/notification-email/config.js';
import { sendEmail } from '../../actors/notification-email/send.js';
import type {
  NotificationWebhookSecrets,
  NotificationWebhookSettings,
} from '../../actors/notification-webhook/config.js';
import { sendNotification } from '../../actors/notification-webhook/send.js';
import type { InstanceConfig } from '../../actors/shared/definition.js';
import { alertLinks } from '../../flow/alerts/links.js';
import type { SendOptions } from '../../actors/notification-webhook/send.js';
import type { NotificationJob } from '../../protocol/notify-protocol.js';
import { direct } from '../../storage/sql.js';
import type { Orm } from '../../storage/db.js';
import { alertOfRow, isoSql, type Notifications } from './notifications.js';

/** The claim of a test row never runs out by itself: no notifier actor takes it. */
const never = new Date('9999-12-31T00:00:00Z');

export async function sendTestNotification(
  deps: { orm: Orm; now: () => Date; publicUrl: string; userAgent: string; notifications: Notifications },
  config: InstanceConfig,
): Promise<number> {
  const db = direct(deps.orm);
  const at = deps.now();
  const email = config.type === 'notification-email';
  const format = email ? 'email' : (config.settings as unknown as NotificationWebhookSettings).format;
  const key = `${config.type}:${config.name}`;
  const [row] = await db.all<Parameters<typeof alertOfRow>[0]>(
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
      never,
    ],
  );
  const id = Number(row!.id);
  let firstFailed = () => {};
  const retrying = new Promise<void>((resolve) => (firstFailed = resolve));
  const send = (job: NotificationJob, options: SendOptions) =>
    email
      ? sendEmail(
          config.settings as unknown as NotificationEmailSettings,
          config.secrets as NotificationEmailSecrets,
          job,
          options,
        )
      : sendNotification(
          config.settings as unknown as NotificationWebhookSettings,
          config.secrets as unknown as NotificationWebhookSecrets,
          job,
          options,
        );
  const sending = send(
    { notification_id: id, grouped: [], test: true, alerts: [alertOfRow(row!, deps.publicUrl)] },
    {
      userAgent: deps.userAgent,
      signal: deps.notifications.closing,
      onRetry: async (attempts, error) => {
        await deps.notifications.progress(id, attempts, error);
        firstFailed();
      },
    },
  ).then((outcome) => deps.notifications.record({ notification_id: id, grouped: [], ...outcome }));
  deps.notifications.carryOn(sending);
  await Promise.race([sending, retrying]);
  return id;
}
