/**
 * Configuration of the AS2 sender (spec 2.6). The partner's address (endpoint) belongs to
 * its AS2 profile. Stored and validated now; the sender itself comes with the AS2 module.
 */
import type { PluginTypeDefinition } from '../shared/definition.js';
import {
  maxConcurrentDeliveries,
  retryDefaults,
  retryFields,
  retryProblems,
  wholeNumber,
} from '../shared/fields.js';

export const as2SenderType: PluginTypeDefinition = {
  type: 'as2-sender',
  role: 'target',
  summary: 'Sends messages to partners by AS2',
  fields: {
    timeout_seconds: wholeNumber(1, 3600).describe('Seconds an attempt may take'),
    max_concurrent_deliveries: maxConcurrentDeliveries,
    ...retryFields,
  },
  defaults: { timeout_seconds: 120, max_concurrent_deliveries: 5, ...retryDefaults },
  secretFields: {},
  problems: retryProblems,
};
