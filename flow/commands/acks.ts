/**
 * Acknowledgements: a delivery its target sent whose partner's receipt is still to come
 * (AS2 asynchronous MDN) waits in the table's await_ack state. The receipt settles it (ack,
 * or fail for a negative one) and a deadline that passes fails it. The moves come from the
 * delivery table like every other; the protocol says only when, and with which words.
 *
 * Locks: its caller holds the `message` row (settleAwaited, flow/commands/as2-records.ts); then the
 * `delivery` row, `message_history`.
 */
import { deliveryTransitions, nextState } from '../tables/delivery-states.js';
import { addHistory, settleMessages, type HistoryKind, type Tx } from '../tx.js';

/** The state a delivery waits for its acknowledgement in. */
export const awaitingAck = deliveryTransitions.delivering.await_ack!;

export interface Acknowledgement {
  messageId: string;
  deliveryId: number;
  /** A positive receipt (ack); otherwise the delivery fails. */
  ok: boolean;
  text: string;
  /** The history line recording the receipt itself, written before the delivery's move. */
  receiptKind: HistoryKind;
}

/**
 * Settles a delivery awaiting its acknowledgement and writes the receipt's history line.
 * False when the delivery was not waiting (settled before, or redelivered since): the receipt
 * is still recorded.
 */
export async function acknowledge(tx: Tx, at: Date, ack: Acknowledgement): Promise<boolean> {
  const to = nextState(awaitingAck, ack.ok ? 'ack' : 'fail');
  const [row] = await tx.all<{ target: string }>(
    `update delivery set state = ?, finished_at = ?, updated_at = ?, last_error = ?
      where id = ? and message_id = ? and state = ? returning target`,
    [to, at, at, ack.ok ? '' : ack.text, ack.deliveryId, ack.messageId, awaitingAck],
  );
  const about = { message_id: ack.messageId, delivery_id: ack.deliveryId, target: row?.target ?? null };
  await addHistory(tx, at, [{ ...about, kind: ack.receiptKind, text: ack.text }]);
  if (!row) return false;
  await addHistory(tx, at, [
    { ...about, kind: 'delivery_changed', old_state: awaitingAck, new_state: to, text: ack.text },
  ]);
  await settleMessages(tx, at, [ack.messageId]);
  return true;
}

/**
 * Fails the deliveries whose acknowledgement deadline passed, as the protocol that set the
 * deadline finds them (each through acknowledge); returns how many. Run on the dispatcher's
 * schedule, so deadlines are watched by the same timer as retries and stalls.
 */
export type AckDeadlines = (tx: Tx, at: Date) => Promise<number>;
