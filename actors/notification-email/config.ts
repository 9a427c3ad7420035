/**
 * Configuration of an email notifier: alerts sent by SMTP, the channel Mendelson and
 * the commercial gateways alert on. The same alerts, cooldowns, groups and notification log as
 * the webhook (docs/alerts.md); the password is write-only and sealed at rest like every secret.
 */
import { z } from 'zod';
import type { PluginTypeDefinition, SettingsOf } from '../shared/definition.js';
import { password, retryFields, retryProblems, userName, wholeNumber } from '../shared/fields.js';

/**
 * How the connection is protected: `starttls` (submission, port 587: plain, then upgraded, and
 * refused if the server cannot), `tls` (implicit TLS, port 465), `none` (a relay on a trusted
 * network; the password is then never sent).
 */
export const smtpSecurities = ['starttls', 'tls', 'none'] as const;

const emailAddress = z.email('Must be an email address such as ops@example.com').max(254);

export const notificationEmailType = {
  type: 'notification-email',
  role: 'notifier',
  summary: 'Sends alerts by email (SMTP)',
  fields: {
    smtp_host: z
      .string()
      .min(1, 'Required')
      .max(255)
      .regex(/^[A-Za-z0-9.:[\]-]+$/, 'Must be a host name or an IP address')
      .describe('SMTP server host name or address'),
    smtp_port: wholeNumber(1, 65_535).describe('SMTP server port: 587 for starttls, 465 for tls'),
    smtp_security: z
      .enum(smtpSecurities)
      .describe('starttls (upgrade required), tls (implicit TLS) or none (trusted relay only)'),
    smtp_username: userName.describe('User for SMTP authentication; empty for none'),
    tls_ca: z
      .string()
      .max(65_536)
      .regex(/^$|-----BEGIN CERTIFICATE-----/, 'Must be empty or PEM certificates')
      .describe("PEM certificates trusted beside the system's for the SMTP server (a company CA)"),
    from: emailAddress.describe('Sender address of the notifications'),
    to: z.array(emailAddress).min(1, 'Name at least one recipient').max(50).describe('Recipient addresses'),
    subject_prefix: z
      .string()
      .max(64)
      .regex(
        // eslint-disable-next-line no-control-regex
        /^[^\u0000-\u001f\u007f]*$/,
        'Must not contain control characters (a line break would start a header)',
      )
      .describe('Put before every subject line'),
    min_severity: z.enum(['info', 'warning', 'critical']).describe('Least severe alert sent'),
    timeout_seconds: wholeNumber(1, 300).describe('Seconds an attempt (connect, send) may take'),
    cooldown_seconds: wholeNumber(0, 604_800).describe(
      'An alert with the dedupe key of one notified this long ago or less is suppressed',
    ),
    group_window_seconds: wholeNumber(0, 3600).describe(
      'Alerts of one code within this window after a notification are sent together as one',
    ),
    ...retryFields,
  },
  defaults: {
    smtp_port: 587,
    smtp_security: 'starttls',
    smtp_username: '',
    tls_ca: '',
    subject_prefix: '[pier]',
    min_severity: 'warning',
    timeout_seconds: 30,
    cooldown_seconds: 900,
    group_window_seconds: 60,
    max_attempts: 5,
    retry_interval: 2,
    retry_backoff: 2,
    retry_max_interval: 60,
  },
  secretFields: {
    smtp_password: password.describe('Write-only: the SMTP password'),
  },
  problems: (s) => {
    const problems = retryProblems(s);
    if (s.smtp_security === 'none' && s.smtp_username !== '')
      problems.smtp_username = 'Authentication needs starttls or tls: the password would travel in clear';
    return problems;
  },
} satisfies PluginTypeDefinition;

export type NotificationEmailSettings = SettingsOf<typeof notificationEmailType>;

export interface NotificationEmailSecrets {
  smtp_password?: string;
}
