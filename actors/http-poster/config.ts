/** Configuration of the HTTP poster (docs/api/plugin-configs.md): delivers payloads by POST to a URL. */
import { formatField } from '../shared/delivery-format.js';
import { z } from 'zod';
import type { PluginTypeDefinition, SettingsOf } from '../shared/definition.js';
import {
  headerList,
  maxConcurrentDeliveries,
  password,
  retryDefaults,
  retryFields,
  retryProblems,
  unreachableAlertDefaults,
  unreachableAlertFields,
  userName,
  wholeNumber,
} from '../shared/fields.js';
import { proxyDefaults, proxyFields, proxySecrets } from '../shared/proxy.js';

const httpPosterFields = {
  url: z.string().max(2048).describe('Address the payload is posted to'),
  http_basic_username: userName.describe('User for HTTP basic authentication; empty for none'),
  content_type: z
    .string()
    .min(1)
    .max(256)
    .regex(/^[\w!#$&^.+-]+\/[\w!#$&^.+-]+(\s*;.*)?$/, 'Must be a media type such as text/plain')
    .describe('Content-Type of the request (with format json: application/json)'),
  format: formatField,
  timeout_seconds: wholeNumber(1, 3600).describe('Seconds an attempt may take'),
  max_concurrent_deliveries: maxConcurrentDeliveries,
  ...retryFields,
  ...unreachableAlertFields,
  ...proxyFields,
};

const httpPosterDefaults = {
  http_basic_username: '',
  content_type: 'application/octet-stream',
  format: 'edi',
  timeout_seconds: 60,
  max_concurrent_deliveries: 5,
  ...retryDefaults,
  ...unreachableAlertDefaults,
  ...proxyDefaults,
};

const httpPosterSecrets = {
  http_basic_password: password.describe('Write-only'),
  http_headers: headerList.describe('Write-only; replaced as a whole, [] removes them'),
  ...proxySecrets,
};

export const httpPosterType = {
  type: 'http-poster',
  role: 'target',
  summary: 'Posts delivered payloads to an HTTP address',
  fields: httpPosterFields,
  defaults: httpPosterDefaults,
  secretFields: httpPosterSecrets,
  urlField: 'url',
  urlFields: ['url'],
  problems: retryProblems,
} satisfies PluginTypeDefinition;

export type HttpPosterSettings = SettingsOf<typeof httpPosterType>;
