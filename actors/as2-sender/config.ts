/**
 * Configuration of the AS2 sender (docs/api/plugin-configs.md). The partner's address (endpoint) and what
 * protects its messages belong to its AS2 profile.
 */
import { z } from 'zod';
import type { PluginTypeDefinition, SettingsOf } from '../shared/definition.js';
import {
  maxConcurrentDeliveries,
  retryDefaults,
  retryFields,
  retryProblems,
  unreachableAlertDefaults,
  unreachableAlertFields,
  threadsField,
  wholeNumber,
} from '../shared/fields.js';
import { proxyDefaults, proxyFields, proxySecrets } from '../shared/proxy.js';

export const as2SenderType = {
  type: 'as2-sender',
  role: 'target',
  summary: 'Sends messages to partners by AS2',
  fields: {
    timeout_seconds: wholeNumber(1, 3600).describe('Seconds an attempt may take'),
    max_concurrent_deliveries: maxConcurrentDeliveries,
    threads: threadsField(
      'Threads that pack and send, each with its own database connections (0: one per 4 cores, at ' +
        'least one, at most max_concurrent_deliveries). Each claims its share of the queued ' +
        'deliveries; max_concurrent_deliveries counts for the sender as a whole and is shared out among them',
    ),
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
    threads: 0,
    compression_order: 'before-sign',
    ...retryDefaults,
    ...unreachableAlertDefaults,
    ...proxyDefaults,
    // A partner's asynchronous receipt usually comes within seconds; the profile's receipt
    // timeout (hours) is when the delivery fails, far too late to hear that receipts stopped.
    receipt_alert_minutes: 15,
  },
  secretFields: proxySecrets,
  problems: (s) => {
    const problems = retryProblems(s);
    // A thread without a share of the deliveries would have nothing to send.
    if ((s.threads as number) > (s.max_concurrent_deliveries as number))
      problems.threads = 'Must be at most max_concurrent_deliveries: each thread sends its share of them';
    return problems;
  },
} satisfies PluginTypeDefinition;

export type As2SenderSettings = SettingsOf<typeof as2SenderType>;
