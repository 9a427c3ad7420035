/** The payload store's calls, counted into `pier_payload_store_seconds` (storage/payloads/timed-store.ts). */
import type { StoreCallObserver } from '../payload-wire.js';
import type { MetricsPort } from './port.js';

export function storeTiming(metrics: MetricsPort, backend: string): StoreCallObserver {
  return (operation, ok, seconds) =>
    metrics.observe(
      'pier_payload_store_seconds',
      { backend, operation, outcome: ok ? 'ok' : 'error' },
      seconds,
    );
}
