/**
 * Dispatch: accepted messages are matched against the routes as they are now and get one
 * queued delivery per target; each target is announced to every process. A message that
 * matches nothing is settled as NotRouted.
 *
 * Locks (docs/architecture.md, "Lock order of the message flow"): `message` rows, id order,
 * FOR NO KEY UPDATE SKIP LOCKED; inserts their `delivery` and `message_history` rows.
 */
import { addHistory, announce, lockMessages, pgArray, settleMessages, type Tx } from '../tx.js';
import { targetsFor, type Routable, type RouteRow } from '../tables/routing.js';
import { stallWaitSeconds } from '../tables/schedule.js';

export interface NewDelivery {
  id: number;
  message_id: string;
  target: string;
}

export async function loadRoutes(tx: Tx): Promise<RouteRow[]> {
  return tx.all<RouteRow>(
    'select source_plugin, from_party, to_party, document_type, target_plugin from route',
  );
}

/** Inserts queued deliveries, announced once now, and writes their history lines. */
export async function queueDeliveries(
  tx: Tx,
  at: Date,
  wanted: { message_id: string; target: string }[],
  text: string,
): Promise<NewDelivery[]> {
  if (wanted.length === 0) return [];
  const nextDispatch = new Date(at.getTime() + stallWaitSeconds(0) * 1000);
  const made = await tx.all<{ id: string; message_id: string; target: string }>(
    `insert into delivery (message_id, target, state, dispatches, next_dispatch_at, created_at, updated_at)
     select x.message_id, x.target, 'queued', 1, ?, ?, ?
       from jsonb_to_recordset(?::jsonb) as x(message_id uuid, target text)
     on conflict (message_id, target) do nothing
     returning id, message_id, target`,
    [nextDispatch, at, at, JSON.stringify(wanted)],
  );
  const deliveries = made.map((d) => ({ id: Number(d.id), message_id: d.message_id, target: d.target }));
  await addHistory(
    tx,
    at,
    deliveries.map((d) => ({
      message_id: d.message_id,
      kind: 'delivery_changed',
      delivery_id: d.id,
      target: d.target,
      old_state: null,
      new_state: 'queued',
      text,
    })),
  );
  return deliveries;
}

/** Dispatches those of `ids` that are still accepted; returns the targets announced. */
export async function dispatchBatch(tx: Tx, at: Date, ids: string[]): Promise<string[]> {
  const locked = await lockMessages(tx, ids, true);
  if (locked.length === 0) return [];
  const messages = await tx.all<Routable & { id: string }>(
    `select id, source_name, from_party, to_party, target_hint,
            (select document_types from edi_interchange e where e.message_id = message.id) as document_types
       from message where id = any(?::uuid[]) and stage = 'accepted'`,
    [pgArray(locked)],
  );
  if (messages.length === 0) return [];
  const routes = await loadRoutes(tx);
  const wanted = messages.flatMap((m) =>
    targetsFor(m, routes).map((target) => ({ message_id: m.id, target })),
  );
  const deliveries = await queueDeliveries(tx, at, wanted, 'Dispatched');
  await settleMessages(
    tx,
    at,
    messages.map((m) => m.id),
  );
  const targets = [...new Set(deliveries.map((d) => d.target))];
  await announce(tx, targets);
  return targets;
}
