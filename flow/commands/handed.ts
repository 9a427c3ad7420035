/**
 * A handed delivery whose file did not get its name after all (protocol/handoff-protocol.ts):
 * the acceptance stored it as delivered, then the target stopped before it named the file, or
 * naming it failed. It goes back to the queue, as a redelivery does, so the target writes it
 * again from the payload store on its normal way; the history says why.
 *
 * Locks (docs/architecture.md, "Lock order of the message flow"): the `message` row, then the
 * `delivery` row, FOR NO KEY UPDATE; inserts `message_history`; updates the message's status.
 */
import { deliveryTransitions } from '../tables/delivery-states.js';
import { handedDeliveryState } from './accept-plan.js';
import { stallWaitSeconds } from '../tables/schedule.js';
import { addHistory, announce, settleMessages, type Tx } from '../tx.js';

/**
 * Queues the handed delivery of `messageId` at `target` again, when it is still as the
 * acceptance stored it (delivered, never claimed); answers whether it did. Calling it twice
 * queues it once, and a delivery the queue has taken since is left to the queue.
 */
export async function requeueHanded(
  tx: Tx,
  at: Date,
  messageId: string,
  target: string,
  reason: string,
): Promise<boolean> {
  const [delivery] = await tx.all<{ id: string }>(
    `select d.id from message m join delivery d on d.message_id = m.id
      where m.id = ? and d.target = ? and d.state = ? and d.claims = 0
        for no key update of m, d`,
    [messageId, target, handedDeliveryState],
  );
  if (!delivery) return false;
  const queued = deliveryTransitions[handedDeliveryState].redeliver!;
  await tx.all(
    `update delivery set state = ?, last_error = ?, next_attempt_at = null, finished_at = null,
            dispatches = 1, next_dispatch_at = ?, updated_at = ?
      where id = ?`,
    [queued, reason, new Date(at.getTime() + stallWaitSeconds(0) * 1000), at, delivery.id],
  );
  await addHistory(tx, at, [
    {
      message_id: messageId,
      delivery_id: Number(delivery.id),
      target,
      kind: 'delivery_changed',
      old_state: handedDeliveryState,
      new_state: queued,
      text: `Queued again: ${reason}`,
    },
  ]);
  await settleMessages(tx, at, [messageId]);
  await announce(tx, [target]);
  return true;
}
