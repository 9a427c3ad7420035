/**
 * Sending one notification by email: an SMTP session per attempt (notifications are few; a
 * pool would hold a connection open to a server nobody is writing to), retried after a growing
 * wait on a network or TLS error, a timeout or a 4xx reply (the server says "later"); a 5xx reply
 * or refused authentication fails at once (it would be refused again). The Message-ID is the
 * same on every attempt (`<notification-<row id>@pier>`), so a mailbox that got an attempt whose
 * answer was lost can tell the repeat. Used by the actor and by the API's test notification.
 */
import { rootCertificates } from 'node:tls';
import { createTransport } from 'nodemailer';
import type { NotificationJob, NotificationOutcome } from '../../protocol/notify-protocol.js';
import { emailSeverity, renderEmail } from './render.js';
import { retryWait, sleeper, type SendOptions } from '../notification-webhook/send.js';
import type { NotificationEmailSecrets, NotificationEmailSettings } from './config.js';

interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
}

/**
 * The server's reply decides when there is one: 4xx is "later", 5xx is "no" (nodemailer tags a
 * refusal by its stage, EENVELOPE or EMESSAGE, whichever the code). Without a reply, refused
 * authentication is final; the rest (refused connection, DNS, TLS, timeout) may pass.
 */
function retryable(e: SmtpError): boolean {
  if (e.responseCode !== undefined) return e.responseCode < 500;
  return e.code !== 'EAUTH' && e.code !== 'ENOAUTH';
}

/** The transport's options for one attempt: TLS as the settings say, the password only over TLS. */
function transportOptions(settings: NotificationEmailSettings, secrets: NotificationEmailSecrets) {
  const timeout = settings.timeout_seconds * 1000;
  return {
    host: settings.smtp_host,
    port: settings.smtp_port,
    secure: settings.smtp_security === 'tls',
    requireTLS: settings.smtp_security === 'starttls',
    ignoreTLS: settings.smtp_security === 'none',
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    ...(settings.smtp_username !== '' && settings.smtp_security !== 'none'
      ? { auth: { user: settings.smtp_username, pass: secrets.smtp_password ?? '' } }
      : {}),
    tls: {
      minVersion: 'TLSv1.2' as const,
      // A company CA is trusted beside the system's, not instead of them.
      ...(settings.tls_ca ? { ca: [...rootCertificates, settings.tls_ca] } : {}),
    },
  };
}

export async function sendEmail(
  settings: NotificationEmailSettings,
  secrets: NotificationEmailSecrets,
  job: NotificationJob,
  options: Omit<SendOptions, 'now'>,
): Promise<Omit<NotificationOutcome, 'notification_id' | 'grouped'>> {
  const sleep = options.sleep ?? sleeper(options.signal);
  const mail = renderEmail(job, settings.subject_prefix);
  const server = `${settings.smtp_host}:${settings.smtp_port}`;
  let error = '';
  for (let attempt = 1; ; attempt++) {
    const transport = createTransport(transportOptions(settings, secrets));
    const stop = () => transport.close();
    options.signal?.addEventListener('abort', stop, { once: true });
    let again = true;
    try {
      await transport.sendMail({
        from: settings.from,
        to: settings.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId: `<notification-${job.notification_id}@pier>`,
        headers: {
          // `resolved` for an all-clear (render.ts), so a filter on critical mail skips it.
          'X-Pier-Severity': emailSeverity(job.alerts),
          'X-Pier-Alert-Code': job.alerts[0]!.code,
          'X-Mailer': options.userAgent,
        },
      });
      return { ok: true, attempts: attempt };
    } catch (caught) {
      const e = caught as SmtpError;
      again = retryable(e);
      error = scrub(`${server}: ${e.message}`, secrets.smtp_password);
    } finally {
      options.signal?.removeEventListener('abort', stop);
      transport.close();
    }
    if (!again || attempt >= settings.max_attempts || options.signal?.aborted) {
      return { ok: false, attempts: attempt, error };
    }
    await options.onRetry?.(attempt, error);
    await sleep(retryWait(settings, attempt));
    if (options.signal?.aborted) return { ok: false, attempts: attempt, error };
  }
}

/** A server that echoes what it was sent must not carry the password into the log. */
function scrub(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join('***') : text;
}
