/**
 * The operator's record of the message flow in the log: one info line per accepted message and
 * one per delivery that ended (delivered, failed, stalled). Written after the transaction that
 * made the change committed, so the log never tells of a change that was rolled back.
 */
import type { Logger } from 'pino';
import type { AcceptItem, AcceptOutcome } from '../../flow/commands/accept.js';
import type { DeliveryEnd } from '../../flow/commands/claims.js';

export function logAccepted(logger: Logger, item: AcceptItem, outcome: AcceptOutcome | undefined): void {
  if (!outcome || outcome.duplicate) return;
  const m = item.message;
  logger.info(
    {
      message_id: outcome.message_id,
      source: `${item.source_type}/${item.source_name}`,
      from: m.from,
      to: m.to,
      file_name: m.file_name,
      size_bytes: m.payload.size_bytes,
      status: outcome.status,
      ...(m.as2_record
        ? { as2_message_id: m.as2_record.as2_message_id, as2_from: m.as2_record.as2_from }
        : {}),
      ...(m.refusal ? { refusal: m.refusal } : {}),
    },
    m.refusal ? 'message refused' : 'message accepted',
  );
}

export function logDeliveryEnd(logger: Logger, end: DeliveryEnd): void {
  logger.info(
    {
      message_id: end.message_id,
      delivery_id: end.delivery_id,
      target: end.target,
      state: end.state,
      attempts: end.attempts,
      elapsed_ms: end.elapsed_ms,
      last_error: end.last_error,
    },
    `delivery ${end.state}`,
  );
}
