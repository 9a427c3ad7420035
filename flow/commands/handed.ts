/**
 * A handed delivery (protocol/handoff-protocol.ts) after its acceptance: the acceptance stored
 * it as held by its target (delivering, claimed by the accepting node, claim 1). Either the
 * target names the file and records it delivered (the ordinary result of that claim), or the
 * file does not get its name (the target stopped, naming failed, the process died): then the
 * delivery goes back to the queue, as a claim taken back does, and the target writes it again
 * from the payload store on its normal way; the history says why.
 *
 * Locks (docs/architecture.md, "Lock order of the message flow"): the `message` row, then the
 * `delivery` row, FOR NO KEY UPDATE; inserts `message_history`; updates the message's status.
 */
import { deliveryTransitions } from '../tables/delivery-states.js';
import { liveNodeCondition } from '../node-presence.js';
import { handedDeliveryState } from './accept-plan.js';
import { stallWaitSeconds } from '../tables/schedule.js';
import { addHistory, announce, settleMessages, type Tx } from '../tx.js';

/**
 * Before handed deliveries were held (until 2026-11-27) the acceptance stored them delivered,
 * never claimed: a file such an acceptance left unnamed, found after an upgrade, is queued too.
 */
const storedDeliveredBefore = 'delivered';

/**
 * Queues the handed delivery of `messageId` at `target` again, when it is still as the
 * acceptance of node `node` stored it (held by that node, or delivered and never claimed by an
 * earlier version); answers whether it did. Calling it twice queues it once, and a delivery the
 * queue has taken since is left to the queue.
 */
export async function requeueHanded(
  tx: Tx,
  at: Date,
  messageId: string,
  target: string,
  node: number,
  reason: string,
): Promise<boolean> {
  const [delivery] = await tx.all<{ id: string; state: string }>(
    `select d.id, d.state from message m join delivery d on d.message_id = m.id
      where m.id = ? and d.target = ?
        and ((d.state = ? and d.claimed_by = ?) or (d.state = ? and d.claims = 0))
        for no key update of m, d`,
    [messageId, target, handedDeliveryState, node, storedDeliveredBefore],
  );
  if (!delivery) return false;
  const held = delivery.state === handedDeliveryState;
  const queued = held
    ? deliveryTransitions[handedDeliveryState].release!
    : deliveryTransitions[storedDeliveredBefore].redeliver!;
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
      old_state: delivery.state,
      new_state: queued,
      text: `Queued again: ${reason}`,
    },
  ]);
  await settleMessages(tx, at, [messageId]);
  await announce(tx, [target]);
  return true;
}

/** What became of a handed file found in the target's directory with nobody holding it in hand. */
export type LeftoverOutcome =
  /** Its node is alive: the file may be in its hand still, and stays. */
  | 'held'
  /** Its delivery was queued again; the file goes. */
  | 'queued'
  /** Its delivery is not held (never accepted, or settled already); the file goes. */
  | 'settled';

/**
 * A handed file `node` wrote for `messageId` and left (a crash, a stop): while that node lives
 * (another process of the cluster, its presence lock held) it is left alone unless `node` is
 * this process's own; else its delivery is queued again when still held by that node. The file
 * itself is then of no use: the payload store holds the document, and the queue writes it.
 */
export async function handedLeftover(
  tx: Tx,
  at: Date,
  leftover: { messageId: string; target: string; node: number; self: number },
  reason: string,
): Promise<LeftoverOutcome> {
  const { messageId, target, node, self } = leftover;
  if (node !== self) {
    const [alive] = await tx.all<{ live: boolean }>(`select ${liveNodeCondition('?::int')} as live`, [node]);
    if (alive?.live) return 'held';
  }
  return (await requeueHanded(tx, at, messageId, target, node, reason)) ? 'queued' : 'settled';
}
