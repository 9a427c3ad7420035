/**
 * Configuration of the AS2 sender (docs/api/plugin-configs.md). The partner's address (endpoint) and what
 * protects its messages belong to its AS2 profile.
 */
import { z } from 'zod';
import type { PluginTypeDefinition } from '../shared/definition.js';
import {
  maxConcurrentDeliveries,
  retryDefaults,
  retryFields,
  retryProblems,
  unreachableAlertDefaults,
  unreachableAlertFields,
  wholeNumber,
} from '../shared/fields.js';
import { proxyDefaults, proxyFields, proxySecrets, type ProxySettings } from '../shared/proxy.js';

export const as2SenderType: PluginTypeDefinition = {
  type: 'as2-sender',
  role: 'target',
  summary: 'Sends messages to partners by AS2',
  fields: {
    timeout_seconds: wholeNumber(1, 3600).describe('Seconds an attempt may take'),
    max_concurrent_deliveries: maxConcurrentDeliveries,
    compression_order: z
      .enum(['before-sign', 'after-sign'])
      .describe('Where the compressed layer goes for partners whose profile compresses'),
    ...retryFields,
    ...unreachableAlertFields,
    ...proxyFields,
    receipt_alert_minutes: wholeNumber(0, 1440).describe(
      'Minutes an asynchronous receipt (MDN) may be late before receipts_missing is raised for the partner; 0: only at the receipt timeout',
    ),
  },
  defaults: {
    timeout_seconds: 120,
    max_concurrent_deliveries: 5,
    compression_order: 'before-sign',
    ...retryDefaults,
    ...unreachableAlertDefaults,
    ...proxyDefaults,
    // A partner's asynchronous receipt usually comes within seconds; the profile's receipt
    // timeout (hours) is when the delivery fails, far too late to hear that receipts stopped.
    receipt_alert_minutes: 15,
  },
  secretFields: proxySecrets,
  problems: retryProblems,
};

export interface As2SenderSettings extends ProxySettings {
  timeout_seconds: number;
  max_concurrent_deliveries: number;
  compression_order: 'before-sign' | 'after-sign';
  receipt_alert_minutes: number;
}
