/** The email notifier actor: sends each notification due by SMTP (send.ts) in the notifiers' round. */
import { runActor } from '../../protocol/worker-host/host.js';
import { notifierActor } from '../shared/notifier-loop.js';
import { parseSettings } from '../shared/settings.js';
import { notificationEmailType, type NotificationEmailSecrets } from './config.js';
import { sendEmail } from './send.js';

runActor(async (start, core) => {
  const settings = parseSettings(notificationEmailType, start.settings);
  const secrets = start.secrets as unknown as NotificationEmailSecrets;
  return notifierActor(core, (job, signal, onRetry) =>
    sendEmail(settings, secrets, job, { userAgent: start.user_agent, signal, onRetry }),
  );
});
