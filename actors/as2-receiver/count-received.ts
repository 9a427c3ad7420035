/**
 * What a received AS2 message adds to the process's metrics: its partner and the disposition
 * answered, the security check that refused it, and the receipt sent. The partner is the
 * configured partner's name, or `unknown`: AS2-From is whatever a stranger sends, and a label
 * taken from it would let anyone mint series.
 */
import type { MetricsPort } from '../../protocol/metrics/port.js';
import type { ErrorModifier } from '../as2/vocabulary/dispositions.js';

/** The checks whose failures operators watch for, by the modifier that tells of each. */
const securityChecks: Partial<Record<ErrorModifier, string>> = {
  'authentication-failed': 'signature',
  'integrity-check-failed': 'mic',
  'decryption-failed': 'decryption',
};

export interface ReceivedCount {
  /** The configured partner, or undefined when AS2-From/AS2-To name none. */
  partner: string | undefined;
  /** The disposition's outcome as the receipt gives it: `processed` or `processed/error: <modifier>`. */
  outcome: string;
  duplicate: boolean;
  /** The receipt sent back, if one was asked for. */
  receipt: 'sync' | 'async' | null;
}

export function countReceived(metrics: MetricsPort, received: ReceivedCount): void {
  const partner = received.partner ?? 'unknown';
  // Lower case, as PromQL matchers are written: `processed/error: decryption-failed`.
  const disposition = received.duplicate ? 'duplicate' : received.outcome.toLowerCase();
  metrics.count('pier_as2_received_total', { partner, disposition });
  const modifier = /error:\s*(.+)$/i.exec(received.outcome)?.[1]?.trim() as ErrorModifier | undefined;
  const check = modifier && securityChecks[modifier];
  if (check && !received.duplicate) metrics.count('pier_as2_security_failures_total', { partner, check });
  if (received.receipt)
    metrics.count('pier_as2_mdns_total', {
      direction: 'sent',
      outcome: received.duplicate ? 'duplicate' : modifier ? 'error' : 'processed',
    });
}
