/** The notification log (docs/api/notifications.md, docs/api/lifecycles.md#notification-outcome) and its filters (docs/api/conventions.md#lists). */
import { z } from 'zod';
import { AlertWebhookBody } from '../../protocol/notify-protocol.js';
import { alertCodes } from '../../flow/alerts/alerts.js';
import { listSchema, pagingQuery, singleLineText } from './common.js';
import { timeBound } from './time-filter.js';

export const notificationOutcomes = [
  'queued',
  'delivered',
  'failed',
  'suppressed_cooldown',
  'grouped',
] as const;
const codes = Object.keys(alertCodes) as [keyof typeof alertCodes, ...(keyof typeof alertCodes)[]];

/** Unknown parameters are refused on this list (docs/api/conventions.md#lists), hence strictObject. */
export const NotificationListQuery = z.strictObject({
  ...pagingQuery(50),
  severity: z.enum(['info', 'warning', 'critical']).optional(),
  code: z.enum(codes).optional(),
  instance: singleLineText(64).optional(),
  outcome: z.enum(notificationOutcomes).optional(),
  from: timeBound('from'),
  to: timeBound('to'),
  include_tests: z
    .enum(['true', 'false'], 'Must be true or false')
    .optional()
    .transform((v) => v === 'true'),
});
export type NotificationListQuery = z.output<typeof NotificationListQuery>;

export const NotificationRecord = z.object({
  id: z.number().int(),
  alert_id: z.number().int(),
  alert_time: z.string(),
  severity: z.enum(['info', 'warning', 'critical']),
  code: z.string(),
  subject_kind: z.string(),
  subject_id: z.string(),
  subject_name: z.string(),
  summary: z.string(),
  details: z.record(z.string(), z.unknown()),
  dedupe_key: z.string(),
  link: z.string().describe('Absolute link (PUBLIC_URL) to the subject; empty when there is none'),
  instance: z.string().describe('The notifier'),
  format: z
    .enum(['json', 'slack', 'teams', 'email'])
    .describe('The webhook format, or email for an email notifier'),
  test: z.boolean(),
  outcome: z.enum(notificationOutcomes),
  attempts: z.number().int(),
  last_error: z.string().nullable(),
  created_at: z.string(),
  delivered_at: z.string().nullable(),
});
export type NotificationRecord = z.infer<typeof NotificationRecord>;

export const notificationList = listSchema('notifications', NotificationRecord);

/** The notification-webhook's request in format json (docs/api/events.md#alerts-and-notifications: not shown; docs/alerts.md). */
export const alertWebhook = {
  summary: 'An alert (or a group of alerts of one code) sent by a notification-webhook instance',
  description:
    'Signed per Standard Webhooks (standardwebhooks.com) when the instance has a signing_secret; verify with any Standard Webhooks library. Formats slack and teams send Slack Block Kit and Teams Adaptive Card messages instead.',
  headers: {
    'webhook-id': 'msg_pier_<notification id>; the same on every attempt',
    'webhook-timestamp': 'Unix seconds of the attempt',
    'webhook-signature':
      'v1,<base64 HMAC-SHA256 of id.timestamp.body> (only with a signing_secret); during the overlap after a rotation, one signature per secret, space-separated',
  },
  body: AlertWebhookBody,
};
