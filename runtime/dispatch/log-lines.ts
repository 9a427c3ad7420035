/**
 * The operator's record of the message flow in the log: one info line per accepted message and
 * one per delivery that ended (delivered, failed, stalled). Written after the transaction that
 * made the change committed (one line per delivery attempt, retries included), so the log never tells of a change that was rolled back.
 */
import type { Logger } from 'pino';
import { acceptedLine, type AcceptItem, type AcceptOutcome } from '../../flow/commands/accept.js';
import { deliveryEndLine, type DeliveryEnd } from '../../flow/commands/record-results.js';
import { countAccepted, countDeliveryEnd } from '../../flow/flow-metrics.js';
import type { MetricsPort } from '../../protocol/metrics/port.js';

/** The line and the counts (flow/flow-metrics.ts) for a message the main thread accepted. */
export function logAccepted(
  logger: Logger,
  metrics: MetricsPort,
  item: AcceptItem,
  outcome: AcceptOutcome | undefined,
): void {
  const line = acceptedLine(item, outcome);
  if (line) logger.info(line.fields, line.msg);
  countAccepted(metrics, item, outcome);
}

export function logDeliveryEnd(logger: Logger, metrics: MetricsPort, end: DeliveryEnd): void {
  const line = deliveryEndLine(end);
  logger[line.level](line.fields, line.msg);
  countDeliveryEnd(metrics, end);
}
