/**
 * The dispatcher's timed work, each a short transaction that any process may run: retries
 * that are due, the stall schedule of queued deliveries nobody claims, claims of processes
 * that died, and accepted messages nobody dispatched (a crash between acceptance and
 * dispatch). Rows another process is working on are skipped, never waited for.
 *
 * Locks (docs/architecture.md, "Lock order of the message flow"): `message` rows, id order,
 * FOR NO KEY UPDATE SKIP LOCKED; then their `delivery` rows, id order, FOR NO KEY UPDATE (a
 * claim may hold one for the length of its statement); inserts `message_history` (and, undispatched,
 * `delivery`); alerts. orphanedClaims locks as releaseBatch does.
 */
import { raiseAlert } from '../alerts/alerts.js';
import { liveNodeCondition } from '../node-presence.js';
import { deliveryTransitions, statesFor, type DeliveryState } from '../tables/delivery-states.js';
import { releaseBatch, type DeliveryEnd } from './record-results.js';
import { dispatchBatch } from './dispatch.js';
import { stallWaitSeconds } from '../tables/schedule.js';
import { addHistory, announce, lockMessages, pgArray, settleMessages, type Tx } from '../tx.js';
import { alertLinks } from '../alerts/links.js';
import { limits } from '../../limits/limits.js';

interface Candidate {
  id: string;
  message_id: string;
  target: string;
  dispatches: number;
}

/** Deliveries matching `condition` whose messages this transaction could lock, locked too. */
async function lockCandidates(tx: Tx, condition: string, params: unknown[]): Promise<Candidate[]> {
  const found = await tx.all<{ id: string; message_id: string }>(
    `select id, message_id from delivery where ${condition} order by id limit ${limits.sweepBatchRows}`,
    params,
  );
  if (found.length === 0) return [];
  const messages = await lockMessages(
    tx,
    found.map((f) => f.message_id),
    true,
  );
  if (messages.length === 0) return [];
  return tx.all<Candidate>(
    `select id, message_id, target, dispatches from delivery
      where id = any(?::bigint[]) and message_id = any(?::uuid[]) and ${condition} order by id for no key update`,
    [pgArray(found.map((f) => f.id)), pgArray(messages), ...params],
  );
}

/** retrying -> queued once the wait is over; the target is announced again. */
export async function retriesDue(tx: Tx, at: Date): Promise<string[]> {
  const due = await lockCandidates(tx, `state = any(?::text[]) and next_attempt_at <= ?`, [
    pgArray(statesFor('due')),
    at,
  ]);
  if (due.length === 0) return [];
  const nextDispatch = new Date(at.getTime() + stallWaitSeconds(0) * 1000);
  await tx.all(
    `update delivery set state = ?, next_attempt_at = null, dispatches = 1, next_dispatch_at = ?, updated_at = ?
      where id = any(?::bigint[])`,
    [deliveryTransitions.retrying.due!, nextDispatch, at, pgArray(due.map((d) => d.id))],
  );
  await addHistory(
    tx,
    at,
    due.map((d) => ({
      message_id: d.message_id,
      kind: 'delivery_changed',
      delivery_id: Number(d.id),
      target: d.target,
      old_state: 'retrying',
      new_state: 'queued',
      text: 'Retry due',
    })),
  );
  await settleMessages(
    tx,
    at,
    due.map((d) => d.message_id),
  );
  const targets = [...new Set(due.map((d) => d.target))];
  await announce(tx, targets);
  return targets;
}

/**
 * The stall schedule (docs/api/lifecycles.md#delivery-state): a queued delivery is announced again after each wait
 * until it has been announced `maxDispatches` times; after the last wait it is stalled and
 * `delivery_stalled` is raised.
 */
export async function stallSchedule(
  tx: Tx,
  at: Date,
  maxDispatches: number,
): Promise<{ announced: string[]; stalled: number; ended: DeliveryEnd[] }> {
  const due = await lockCandidates(tx, `state = any(?::text[]) and next_dispatch_at <= ?`, [
    pgArray(statesFor('stall')),
    at,
  ]);
  const again = due.filter((d) => d.dispatches < maxDispatches);
  const stall = due.filter((d) => d.dispatches >= maxDispatches);
  const ended: DeliveryEnd[] = [];
  if (again.length > 0) {
    await tx.all(
      `update delivery d set dispatches = x.dispatches, next_dispatch_at = x.next_dispatch_at, updated_at = ?
         from jsonb_to_recordset(?::jsonb) as x(id bigint, dispatches int, next_dispatch_at timestamptz)
        where d.id = x.id and d.id = any(?::bigint[])`,
      [
        at,
        JSON.stringify(
          again.map((d) => ({
            id: d.id,
            dispatches: d.dispatches + 1,
            next_dispatch_at: new Date(at.getTime() + stallWaitSeconds(d.dispatches) * 1000),
          })),
        ),
        pgArray(again.map((d) => d.id)),
      ],
    );
    await announce(
      tx,
      again.map((d) => d.target),
    );
  }
  if (stall.length > 0) {
    const stalled: DeliveryState = deliveryTransitions.queued.stall!;
    const why = (d: Candidate) => `No ${d.target} instance claimed it after ${d.dispatches} announcements`;
    const done = await tx.all<{ id: string; attempts: number; created_at: Date }>(
      `update delivery d set state = ?, next_dispatch_at = null, finished_at = ?, last_error = x.last_error, updated_at = ?
         from jsonb_to_recordset(?::jsonb) as x(id bigint, last_error text)
        where d.id = x.id and d.id = any(?::bigint[])
        returning d.id, d.attempts, d.created_at`,
      [
        stalled,
        at,
        at,
        JSON.stringify(stall.map((d) => ({ id: d.id, last_error: why(d) }))),
        pgArray(stall.map((d) => d.id)),
      ],
    );
    const rows = new Map(done.map((r) => [String(r.id), r]));
    for (const d of stall) {
      const row = rows.get(String(d.id));
      ended.push({
        message_id: d.message_id,
        delivery_id: Number(d.id),
        target: d.target,
        state: stalled,
        attempts: row?.attempts ?? 0,
        elapsed_ms: row ? at.getTime() - new Date(row.created_at).getTime() : 0,
        last_error: why(d),
      });
    }
    await addHistory(
      tx,
      at,
      stall.map((d) => ({
        message_id: d.message_id,
        kind: 'delivery_changed',
        delivery_id: Number(d.id),
        target: d.target,
        old_state: 'queued',
        new_state: stalled,
        text: why(d),
      })),
    );
    for (const d of stall) {
      await raiseAlert(
        tx,
        {
          code: 'delivery_stalled',
          subject_kind: 'delivery',
          subject_id: d.id,
          subject_name: `${d.message_id}/${d.target}`,
          summary: `Delivery of message ${d.message_id} to ${d.target} stalled: ${why(d)}`,
          details: {
            message_id: d.message_id,
            delivery_id: Number(d.id),
            target: d.target,
            dispatches: d.dispatches,
          },
          dedupe_key: `delivery_stalled:${d.target}`,
          link: alertLinks.message(d.message_id),
          instance: d.target,
        },
        at,
      );
    }
    await settleMessages(
      tx,
      at,
      stall.map((d) => d.message_id),
    );
  }
  return { announced: [...new Set(again.map((d) => d.target))], stalled: stall.length, ended };
}

/**
 * Takes back the held deliveries that `condition` (on `delivery d`) names, a sweep's batch at a
 * time: queued again, the reason in their history, their targets announced (releaseBatch).
 */
async function takeBack(
  tx: Tx,
  at: Date,
  condition: string,
  params: unknown[],
  reason: string,
): Promise<string[]> {
  const held = await tx.all<{ id: string; claims: number }>(
    `select id, claims from delivery d
      where state = 'delivering' and ${condition}
      order by id limit ${limits.sweepBatchRows}`,
    params,
  );
  if (held.length === 0) return [];
  return releaseBatch(
    tx,
    at,
    held.map((h) => ({ delivery_id: Number(h.id), claim: h.claims })),
    reason,
  );
}

/** Claims held by processes that are gone (their presence lock is free) are taken back. */
export async function orphanedClaims(tx: Tx, at: Date, node: number): Promise<string[]> {
  return takeBack(
    tx,
    at,
    `claimed_by <> ? and not ${liveNodeCondition('d.claimed_by')}`,
    [node],
    'the pier process that held it ended',
  );
}

/**
 * Handed deliveries (handed.ts) this node still holds `afterMs` after their acceptance: taken
 * back and queued, as a dead node's claims are. Only a hand-off leaves a delivery held with no
 * announcement (`dispatches = 0`): a claim from the queue takes a delivery announced at least once.
 * Their writer names the file within milliseconds of the commit and tries the record again while
 * the database does not answer; a delivery still held long after was lost by it (a writer thread
 * started again during an outage, whose look for the files left ran while the database was away;
 * an acceptance given up as failed whose commit became visible after the writer asked), and
 * without this stayed `InProgress` until the process restarted.
 */
export async function unnamedHanded(tx: Tx, at: Date, node: number, afterMs: number): Promise<string[]> {
  return takeBack(
    tx,
    at,
    'claimed_by = ? and dispatches = 0 and claimed_at <= ?',
    [node, new Date(at.getTime() - afterMs)],
    `its file handed to the target was not named within ${Math.round(afterMs / 1000)} s of the acceptance`,
  );
}

/** Accepted messages older than `graceMs` that nobody dispatched. */
export async function undispatched(tx: Tx, at: Date, graceMs: number): Promise<string[]> {
  const rows = await tx.all<{ id: string }>(
    `select id from message where stage = 'accepted' and created_at <= ? order by created_at limit ${limits.sweepBatchRows}`,
    [new Date(at.getTime() - graceMs)],
  );
  if (rows.length === 0) return [];
  return dispatchBatch(
    tx,
    at,
    rows.map((r) => r.id),
  );
}
