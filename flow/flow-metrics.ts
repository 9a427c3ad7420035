/**
 * What the flow counts for the process's metrics (protocol/metrics/catalog.ts), whichever
 * thread ran the command: an actor thread into its tally, the main thread into the registry.
 * Counted where the operator's log line is written, after the transaction committed, so a
 * count never tells of a change that was rolled back.
 */
import type { MetricsPort } from '../protocol/metrics/port.js';
import type { AcceptItem, AcceptOutcome } from './commands/accept.js';
import type { DeliveryEnd } from './commands/record-results.js';
import { finalStates } from './tables/delivery-states.js';

export function countAccepted(
  metrics: MetricsPort,
  item: AcceptItem,
  outcome: AcceptOutcome | undefined,
): void {
  if (!outcome) return;
  const result = outcome.duplicate ? 'duplicate' : item.message.refusal ? 'refused' : 'accepted';
  metrics.count('pier_messages_accepted_total', { source: item.source_name, outcome: result });
}

/**
 * A delivery that reached a final state (delivered, failed, stalled). A failed attempt that will
 * be tried again ends the attempt, not the delivery: pier_delivery_attempts_total and
 * pier_delivery_retries_total count those.
 */
export function countDeliveryEnd(metrics: MetricsPort, end: DeliveryEnd): void {
  if (!finalStates.includes(end.state)) return;
  const labels = { target: end.target, outcome: end.state };
  metrics.count('pier_deliveries_finished_total', labels);
  metrics.observe('pier_delivery_latency_seconds', labels, end.elapsed_ms / 1000);
}
