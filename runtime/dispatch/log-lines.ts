/**
 * The operator's record of the message flow in the log: one info line per accepted message and
 * one per delivery that ended (delivered, failed, stalled). Written after the transaction that
 * made the change committed (one line per delivery attempt, retries included), so the log never tells of a change that was rolled back.
 */
import type { Logger } from 'pino';
import { acceptedLine, type AcceptItem, type AcceptOutcome } from '../../flow/commands/accept.js';
import { deliveryEndLine, type DeliveryEnd } from '../../flow/commands/claims.js';

export function logAccepted(logger: Logger, item: AcceptItem, outcome: AcceptOutcome | undefined): void {
  const line = acceptedLine(item, outcome);
  if (line) logger.info(line.fields, line.msg);
}

export function logDeliveryEnd(logger: Logger, end: DeliveryEnd): void {
  const line = deliveryEndLine(end);
  logger[line.level](line.fields, line.msg);
}
