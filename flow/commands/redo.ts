/**
 * Operator actions on a message (docs/api/lifecycles.md#delivery-state): redispatch queues its queued and stalled
 * deliveries again and adds deliveries for targets the routes match now; redeliver sends
 * one finished or retrying delivery again from the start. Both name the user in history.
 *
 * Locks (docs/architecture.md, "Lock order of the message flow"): the `message` row, then its
 * `delivery` rows (redispatch: all, id order; redeliver: one), FOR NO KEY UPDATE; inserts
 * `delivery` (redispatch) and `message_history`; updates the message's status.
 */
import { deliveryTransitions, statesFor, type DeliveryState } from '../tables/delivery-states.js';
import { loadRoutes, queueDeliveries } from './dispatch.js';
import { DeliveryNotFound, MessageNotFound, NotRedeliverable, NotRedispatchable } from '../errors.js';
import { targetsFor, type Routable } from '../tables/routing.js';
import { stallWaitSeconds } from '../tables/schedule.js';
import { messageStages, type MessageStage } from '../tables/status.js';
import { addHistory, announce, pgArray, settleMessages, type HistoryLine, type Tx } from '../tx.js';

async function lockMessage(tx: Tx, id: string): Promise<Routable & { stage: MessageStage }> {
  const [message] = await tx.all<Routable & { stage: MessageStage }>(
    `select source_name, from_party, to_party, target_hint, stage,
            (select document_types from edi_interchange e where e.message_id = message.id) as document_types
       from message where id = ? for no key update`,
    [id],
  );
  if (!message) throw new MessageNotFound();
  return message;
}

/** Redispatch; answers whether anything changed (nothing changed: no history line). */
export async function redispatch(tx: Tx, at: Date, messageId: string, actor: string): Promise<boolean> {
  const message = await lockMessage(tx, messageId);
  if (message.stage === 'accepted') {
    throw new NotRedispatchable(
      message.stage,
      messageStages.filter((s) => s !== 'accepted'),
    );
  }
  const deliveries = await tx.all<{ id: string; target: string; state: DeliveryState }>(
    'select id, target, state from delivery where message_id = ? order by id for no key update',
    [messageId],
  );
  const again = deliveries.filter((d) => statesFor('redispatch').includes(d.state));
  const have = new Set(deliveries.map((d) => d.target));
  const missing = targetsFor(message, await loadRoutes(tx)).filter((t) => !have.has(t));
  if (again.length === 0 && missing.length === 0) return false;

  const text = `Redispatch requested by ${actor}`;
  const lines: HistoryLine[] = [];
  if (again.length > 0) {
    await tx.all(
      `update delivery set state = ?, dispatches = 1, next_dispatch_at = ?, finished_at = null, updated_at = ?
        where id = any(?::bigint[])`,
      [
        deliveryTransitions.stalled.redispatch!,
        new Date(at.getTime() + stallWaitSeconds(0) * 1000),
        at,
        pgArray(again.map((d) => d.id)),
      ],
    );
    for (const d of again) {
      const base = { message_id: messageId, delivery_id: Number(d.id), target: d.target };
      lines.push({ ...base, kind: 'redispatch_requested', text });
      if (d.state !== 'queued') {
        lines.push({ ...base, kind: 'delivery_changed', old_state: d.state, new_state: 'queued', text });
      }
    }
  }
  const added = await queueDeliveries(
    tx,
    at,
    missing.map((target) => ({ message_id: messageId, target })),
    text,
  );
  for (const d of added) {
    lines.push({
      message_id: messageId,
      delivery_id: d.id,
      target: d.target,
      kind: 'redispatch_requested',
      text,
    });
  }
  await addHistory(tx, at, lines);
  await settleMessages(tx, at, [messageId]);
  await announce(tx, [...again.map((d) => d.target), ...added.map((d) => d.target)]);
  return true;
}

export async function redeliver(
  tx: Tx,
  at: Date,
  messageId: string,
  deliveryId: number,
  actor: string,
): Promise<void> {
  await lockMessage(tx, messageId);
  const [delivery] = await tx.all<{ id: string; target: string; state: DeliveryState }>(
    'select id, target, state from delivery where id = ? and message_id = ? for no key update',
    [deliveryId, messageId],
  );
  if (!delivery) throw new DeliveryNotFound();
  const allowed = statesFor('redeliver');
  if (!allowed.includes(delivery.state)) throw new NotRedeliverable(delivery.state, allowed);
  await tx.all(
    `update delivery set state = ?, attempts = 0, last_error = '', next_attempt_at = null, finished_at = null,
            dispatches = 1, next_dispatch_at = ?, updated_at = ?
      where id = ?`,
    [
      deliveryTransitions[delivery.state].redeliver!,
      new Date(at.getTime() + stallWaitSeconds(0) * 1000),
      at,
      deliveryId,
    ],
  );
  const text = `Redeliver requested by ${actor}`;
  const base = { message_id: messageId, delivery_id: deliveryId, target: delivery.target };
  await addHistory(tx, at, [
    { ...base, kind: 'redeliver_requested', text },
    { ...base, kind: 'delivery_changed', old_state: delivery.state, new_state: 'queued', text },
  ]);
  await settleMessages(tx, at, [messageId]);
  await announce(tx, [delivery.target]);
}
