/**
 * Configuration of a webhook notifier (docs/api/plugin-configs.md, docs/api/events.md#alerts-and-notifications). Its URL is itself a secret (docs/api/conventions.md#write-only-values), and so is its Standard Webhooks signing secret (`whsec_` + base64 key), which is
 * rotated by saving a new one (it takes effect when the instance restarts). The replaced
 * secret keeps signing beside the new one for `signing_secret_overlap_hours`, so a receiver
 * can switch without losing a notification.
 */
import { z } from 'zod';
import type { PluginTypeDefinition, SettingsOf } from '../shared/definition.js';
import {
  headerList,
  password,
  retryFields,
  retryProblems,
  userName,
  wholeNumber,
  type HeaderList,
} from '../shared/fields.js';
import { proxyDefaults, proxyFields, proxySecrets } from '../shared/proxy.js';

export const notificationFormats = ['json', 'slack', 'teams'] as const;
export type NotificationFormat = (typeof notificationFormats)[number];

export const notificationWebhookType = {
  type: 'notification-webhook',
  role: 'notifier',
  summary: 'Sends alerts to an HTTP address',
  fields: {
    format: z.enum(notificationFormats).describe('Body format: json (Standard Webhooks), slack or teams'),
    min_severity: z.enum(['info', 'warning', 'critical']).describe('Least severe alert sent'),
    basic_username: userName.describe('User for HTTP basic authentication; empty for none'),
    timeout_seconds: wholeNumber(1, 300).describe('Seconds an attempt may take'),
    cooldown_seconds: wholeNumber(0, 604_800).describe(
      'An alert with the dedupe key of one notified this long ago or less is suppressed',
    ),
    group_window_seconds: wholeNumber(0, 3600).describe(
      'Alerts of one code within this window after a notification are sent together as one',
    ),
    signing_secret_overlap_hours: wholeNumber(0, 720).describe(
      'Hours a replaced signing secret keeps signing beside the new one (0: none)',
    ),
    ...retryFields,
    ...proxyFields,
  },
  defaults: {
    format: 'json',
    min_severity: 'warning',
    basic_username: '',
    timeout_seconds: 10,
    cooldown_seconds: 900,
    group_window_seconds: 60,
    signing_secret_overlap_hours: 24,
    max_attempts: 5,
    retry_interval: 2,
    retry_backoff: 2,
    retry_max_interval: 60,
    ...proxyDefaults,
  },
  secretFields: {
    ...proxySecrets,
    url: z.string().max(2048).describe('Write-only: the webhook address'),
    basic_password: password.describe('Write-only'),
    headers: headerList.describe('Write-only; replaced as a whole, [] removes them'),
    signing_secret: z
      .string()
      .max(256)
      .regex(
        /^whsec_[A-Za-z0-9+/]{22,}={0,2}$/,
        'Must be whsec_ followed by a base64 key of 16 bytes or more',
      )
      .describe('Write-only: Standard Webhooks secret (whsec_…) that signs every body'),
  },
  overlappingSecrets: { signing_secret: { overlapSetting: 'signing_secret_overlap_hours' } },
  requiredSecrets: ['url'],
  urlField: 'url',
  urlFields: ['url'],
  problems: retryProblems,
} satisfies PluginTypeDefinition;

export type NotificationWebhookSettings = SettingsOf<typeof notificationWebhookType>;

export interface NotificationWebhookSecrets {
  url: string;
  proxy_password?: string;
  basic_password?: string;
  headers?: HeaderList;
  signing_secret?: string;
  /** The secret signing_secret replaced, still signing until `until` (RFC 3339). */
  signing_secret_previous?: { value: string; until: string };
}

/** The secrets that sign at `at`: the current one, and the replaced one during its overlap. */
export function signingSecrets(secrets: NotificationWebhookSecrets, at: Date): string[] {
  const previous = secrets.signing_secret_previous;
  return [
    ...(secrets.signing_secret ? [secrets.signing_secret] : []),
    ...(previous && at.getTime() < Date.parse(previous.until) ? [previous.value] : []),
  ];
}
