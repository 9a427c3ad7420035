/** The webhook notifier actor: sends each notification due (send.ts) in the notifiers' round. */
import { runActor } from '../../protocol/worker-host/host.js';
import { notifierActor } from '../shared/notifier-loop.js';
import { parseSettings } from '../shared/settings.js';
import { notificationWebhookType, type NotificationWebhookSecrets } from './config.js';
import { sendNotification } from './send.js';

runActor(async (start, core) => {
  const settings = parseSettings(notificationWebhookType, start.settings);
  const secrets = start.secrets as unknown as NotificationWebhookSecrets;
  return notifierActor(core, (job, signal, onRetry) =>
    sendNotification(settings, secrets, job, { userAgent: start.user_agent, signal, onRetry }),
  );
});
