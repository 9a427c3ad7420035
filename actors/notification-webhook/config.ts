/**
 * Configuration of a webhook notifier (spec 2.6, 6.2). Its URL is itself a secret (spec 2.1
 * rule 8). Stored and validated now; sending comes with the notifications module.
 */
import { z } from 'zod';
import type { PluginTypeDefinition } from '../shared/definition.js';
import { headerList, password, userName, wholeNumber } from '../shared/fields.js';

export const notificationWebhookType: PluginTypeDefinition = {
  type: 'notification-webhook',
  role: 'notifier',
  summary: 'Sends alerts to an HTTP address',
  fields: {
    format: z.enum(['json', 'slack', 'teams']).describe('Body format of a notification'),
    min_severity: z.enum(['info', 'warning', 'critical']).describe('Least severe alert sent'),
    basic_username: userName.describe('User for HTTP basic authentication; empty for none'),
    timeout_seconds: wholeNumber(1, 300).describe('Seconds an attempt may take'),
  },
  defaults: { format: 'json', min_severity: 'warning', basic_username: '', timeout_seconds: 10 },
  secretFields: {
    url: z.string().max(2048).describe('Write-only: the webhook address'),
    basic_password: password.describe('Write-only'),
    headers: headerList.describe('Write-only; replaced as a whole, [] removes them'),
    signing_secret: z.string().min(16).max(256).describe('Write-only: key of the body signature'),
  },
  requiredSecrets: ['url'],
  urlField: 'url',
  urlFields: ['url'],
};
