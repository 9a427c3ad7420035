/**
 * Results and releases of claimed deliveries (the claims themselves: claim-deliveries.ts). A result counts
 * only for the delivery's current claim.
 *
 * Locks, in the flow's order (docs/architecture.md, "Lock order of the message flow"):
 * - resultBatch, releaseBatch: `message` then `delivery` rows, by (message id, delivery id),
 *   FOR NO KEY UPDATE; then `as2_message`, `payload`, `message_history`; alerts.
 * - resultsAtOnce: the same rows and order in one statement, SKIP LOCKED: a row held elsewhere
 *   sends the batch to resultBatch instead of waiting. With a claim along, then the claim's
 *   queued deliveries as claimBatch takes them.
 */
import type { DeliveryOutcome } from '../../protocol/core-protocol.js';
import { isStorageFailure } from '../../storage/payloads/storage-failure.js';
import { checkDegraded, deliveryFailed, failedLine, storageFailed } from '../alerts/flow-alerts.js';
import { deliveryTransitions, type DeliveryState } from '../tables/delivery-states.js';
import { retryWaitSeconds, stallWaitSeconds, type RetryPolicy } from '../tables/schedule.js';
import { recordAs2Batch, type MessageAs2Record } from './as2-records.js';
import {
  claimAlongSql,
  claimBatch,
  claimedOf,
  type ClaimAlong,
  type Claimed,
  type ClaimedRow,
} from './claim-deliveries.js';
import { bindByName, direct, inTx, type Pool } from '../../storage/sql.js';
import { failedStatuses, statusSql, type MessageStatus } from '../tables/status.js';
import {
  historyInsert,
  messageDeliveriesSql,
  storeSettled,
  type MessageDeliveries,
  announce,
  pgArray,
  type HistoryLine,
  type Tx,
} from '../tx.js';

/** A delivery an instance holds under its claim number: what a release gives back. */
export interface HeldClaim {
  delivery_id: number;
  claim: number;
}

export interface ResultItem {
  target: string;
  delivery_id: number;
  claim: number;
  outcome: DeliveryOutcome;
  policy: RetryPolicy;
}

interface Held {
  id: string;
  message_id: string;
  target: string;
  state: DeliveryState;
  attempts: number;
  claims: number;
  created_at: Date;
}

/**
 * The outcome of a delivery attempt (delivered, failed, retrying, awaiting its receipt) or a
 * delivery's end by a stall, for the log line written once the transaction committed.
 */
export interface DeliveryEnd {
  message_id: string;
  delivery_id: number;
  target: string;
  state: DeliveryState;
  attempts: number;
  /** From the delivery's creation to its end. */
  elapsed_ms: number;
  last_error: string;
  /** When the next attempt is due (ISO-8601), for an attempt that will be retried. */
  next_attempt_at?: string;
}

/** States whose line is a warning: an attempt or a delivery that did not succeed. */
const warningStates: readonly DeliveryState[] = ['retrying', 'failed', 'stalled'];

/** The operator's log line for a delivery attempt or end, whichever thread recorded it. */
export function deliveryEndLine(end: DeliveryEnd): {
  level: 'info' | 'warn';
  msg: string;
  fields: Record<string, unknown>;
} {
  return {
    level: warningStates.includes(end.state) ? 'warn' : 'info',
    msg: `delivery ${end.state}`,
    fields: {
      message_id: end.message_id,
      delivery_id: end.delivery_id,
      target: end.target,
      state: end.state,
      attempts: end.attempts,
      elapsed_ms: end.elapsed_ms,
      last_error: end.last_error,
      ...(end.next_attempt_at ? { next_attempt_at: end.next_attempt_at } : {}),
    },
  };
}

/**
 * Locks the messages of these deliveries, then the deliveries, in message id order (so
 * transactions never wait on each other in a circle); keeps those still held by the claims.
 */
async function lockHeld(
  tx: Tx,
  claims: { delivery_id: number; claim: number }[],
): Promise<Map<number, Held>> {
  const rows = await tx.prepared<Held>(
    'result-lock-held',
    `select d.id, d.message_id, d.target, d.state, d.attempts, d.claims, d.created_at
       from delivery d join message m on m.id = d.message_id
      where d.id = any(?::bigint[])
      order by m.id, d.id
        for no key update of m, d`,
    [pgArray(claims.map((c) => c.delivery_id))],
  );
  const wanted = new Map(claims.map((c) => [c.delivery_id, c.claim]));
  const held = new Map<number, Held>();
  for (const row of rows) {
    if (row.state === 'delivering' && wanted.get(Number(row.id)) === row.claims)
      held.set(Number(row.id), row);
  }
  return held;
}

interface Change {
  id: number;
  state: DeliveryState;
  next_attempt_at: Date | null;
  finished_at: Date | null;
  last_error: string;
  dispatches: number;
  next_dispatch_at: Date | null;
}

/**
 * Updates the deliveries, writes their history lines and reads back the states of every
 * delivery of their (locked) messages, in one statement; then settles the messages.
 */
async function applyChanges(tx: Tx, at: Date, changes: Change[], lines: HistoryLine[]): Promise<void> {
  const rows = await tx.prepared<MessageDeliveries>(
    'result-apply-changes',
    `with changed as (
       update delivery d set state = x.state, next_attempt_at = x.next_attempt_at, finished_at = x.finished_at,
              last_error = x.last_error, dispatches = x.dispatches, next_dispatch_at = x.next_dispatch_at, updated_at = ?
         from jsonb_to_recordset(?::jsonb) as x(id bigint, state text, next_attempt_at timestamptz,
              finished_at timestamptz, last_error text, dispatches int, next_dispatch_at timestamptz)
        where d.id = x.id and d.id = any(?::bigint[])
       returning d.id, d.state
     ), lines as (
       ${historyInsert}
     )
     ${messageDeliveriesSql('changed')}`,
    [
      at,
      JSON.stringify(changes),
      pgArray(changes.map((c) => c.id)),
      at,
      JSON.stringify(lines),
      pgArray([...new Set(lines.map((l) => l.message_id))]),
    ],
  );
  await storeSettled(tx, at, rows);
}

/**
 * Records delivery results; answers, per item, whether its claim was still current. Each
 * recorded attempt's outcome is added to `ended`, to be logged once the transaction commits.
 */
export async function resultBatch(
  tx: Tx,
  at: Date,
  items: ResultItem[],
  ended: DeliveryEnd[] = [],
): Promise<boolean[]> {
  const held = await lockHeld(tx, items);
  const changes: Change[] = [];
  const lines: HistoryLine[] = [];
  const records: MessageAs2Record[] = [];
  const applied = items.map((item) => {
    const row = held.get(item.delivery_id);
    if (!row) return false;
    held.delete(item.delivery_id); // the same result twice in a batch counts once
    const o = item.outcome;
    if (o.as2_record) records.push({ message_id: row.message_id, record: o.as2_record });
    let state: DeliveryState;
    let wait: number | undefined;
    if (o.ok && o.awaiting_ack) state = deliveryTransitions.delivering.await_ack!;
    else if (o.ok) state = deliveryTransitions.delivering.deliver!;
    else if (o.retryable && (wait = retryWaitSeconds(item.policy, row.attempts)) !== undefined) {
      state = deliveryTransitions.delivering.retry!;
    } else state = deliveryTransitions.delivering.fail!;
    const nextAttempt = state === 'retrying' ? new Date(at.getTime() + wait! * 1000) : null;
    changes.push({
      id: item.delivery_id,
      state,
      next_attempt_at: nextAttempt,
      finished_at: state === 'retrying' || state === 'awaiting_ack' ? null : at,
      last_error: o.ok ? '' : o.error,
      dispatches: 0,
      next_dispatch_at: null,
    });
    const text = o.ok
      ? (o.detail ?? 'Delivered')
      : state === 'retrying'
        ? `${o.error}; attempt ${row.attempts + 1} at ${nextAttempt!.toISOString()}`
        : o.retryable
          ? `${o.error}; no attempts left (${item.policy.max_attempts})`
          : o.error;
    // Every attempt's outcome is logged, retries and receipts awaited included, so an operator can follow a delivery in the log alone.
    ended.push({
      message_id: row.message_id,
      delivery_id: item.delivery_id,
      target: row.target,
      state,
      attempts: row.attempts,
      elapsed_ms: at.getTime() - new Date(row.created_at).getTime(),
      last_error: o.ok ? '' : o.error,
      ...(nextAttempt ? { next_attempt_at: nextAttempt.toISOString() } : {}),
    });
    lines.push({
      message_id: row.message_id,
      kind: 'delivery_changed',
      delivery_id: item.delivery_id,
      target: row.target,
      old_state: 'delivering',
      new_state: state,
      text,
    });
    return true;
  });
  // The AS2 record first: its history line (the receipt) comes before the delivery's change.
  await recordAs2Batch(tx, at, records);
  if (changes.length > 0) await applyChanges(tx, at, changes, lines);
  for (const line of lines) {
    if (line.new_state === 'failed') await deliveryFailed(tx, at, failedLine(line));
    if (line.new_state !== 'delivered' && isStorageFailure(line.text)) {
      await storageFailed(tx, at, failedLine(line));
    }
  }
  return applied;
}

/** Whether resultsAtOnce can take this result: a plain success, nothing else to record. */
const plainSuccess = (item: ResultItem) =>
  item.outcome.ok && !item.outcome.awaiting_ack && !item.outcome.as2_record;

const delivered = deliveryTransitions.delivering.deliver!;
const settledStatus = statusSql({ accepted: 'false', refused: 's.refused', states: 's.states' });

/**
 * Records a batch of plain successes in one statement that commits by itself: null when the
 * batch holds anything else (a failure, a receipt to wait for, an AS2 record), which
 * resultBatch records in a transaction. The statement does what resultBatch's five round trips
 * do (begin, lock, update and history, settle, commit): it locks the messages, then the
 * deliveries still held by these claims, in message id order; marks them delivered; settles
 * their messages' status and stage with the derivation table rendered in SQL (statusSql); and
 * writes the history lines, each delivery's before its message's. Deliveries that ended are
 * added to `ended`; a message that became Error or Stalled (another of its deliveries failed)
 * is returned in `degraded`, for the caller to check the system's state after.
 * Null too when a message or delivery of the batch is held by another transaction, or its message
 * changed since the statement began: the statement reads the other deliveries of a message as
 * they were when it began, so after waiting for a lock it settled the message from states another
 * transaction had changed meanwhile (a receipt's failure was overwritten by AwaitingReceipt);
 * resultBatch reads them after its locks.
 */
export async function resultsAtOnce(
  db: Tx,
  at: Date,
  items: ResultItem[],
  ended: DeliveryEnd[] = [],
  claim?: ClaimAlong,
): Promise<{ applied: boolean[]; degraded: boolean; claimed: Claimed | null } | null> {
  if (!items.every(plainSuccess)) return null;
  // The same result twice in a batch counts once: the first.
  const firsts = new Map<number, ResultItem>();
  for (const item of items) if (!firsts.has(item.delivery_id)) firsts.set(item.delivery_id, item);
  const ok = [...firsts.values()].map((i) => ({
    id: i.delivery_id,
    claim: i.claim,
    text: i.outcome.ok ? (i.outcome.detail ?? 'Delivered') : '',
  }));
  const { sql: p, values } = bindByName<string>({
    at,
    ok: JSON.stringify(ok),
    ids: pgArray(ok.map((r) => r.id)),
    ...(claim ? { target: claim.target, limit: claim.limit, node: claim.node } : {}),
  });
  const along = claim ? claimAlongSql(p) : null;
  const [row] = await db.prepared<{
    unmoved: boolean;
    changed: { id: number; message_id: string; target: string; attempts: number; created_at: string }[];
    statuses: MessageStatus[];
    claimed?: ClaimedRow[];
    more?: boolean;
  }>(
    claim ? 'results-at-once-and-claim' : 'results-at-once',
    `with x as (
       select * from jsonb_to_recordset(${p.ok}::jsonb) as x(id bigint, claim int, text text)
     ), seen as materialized (
       select d.id, m.xmin::text as version
         from delivery d join x on x.id = d.id join message m on m.id = d.message_id
        where d.id = any(${p.ids}::bigint[]) and d.state = 'delivering' and d.claims = x.claim
     ), held as materialized (
       select d.id, d.message_id, d.target, d.attempts, d.created_at, x.text, m.xmin::text as version
         from delivery d join x on x.id = d.id join message m on m.id = d.message_id
        where d.id = any(${p.ids}::bigint[]) and d.state = 'delivering' and d.claims = x.claim
        order by m.id, d.id
          for no key update of m, d skip locked
     ), unmoved as (
       select (select count(*) from seen) = (select count(*) from held)
              and not exists (select 1 from seen s join held h on h.id = s.id where h.version <> s.version) as ok
     ), changed as (
       update delivery d set state = '${delivered}', next_attempt_at = null, finished_at = ${p.at}, last_error = '',
              dispatches = 0, next_dispatch_at = null, updated_at = ${p.at}
         from held h where d.id = h.id and d.id = any(${p.ids}::bigint[]) and (select ok from unmoved)
       returning d.id, d.message_id, d.target, d.attempts, h.created_at, h.text
     ), s as materialized (
       select m.id, m.status, m.stage, m.refusal is not null as refused,
              coalesce((select array_agg(coalesce(c.state, d.state))::text[]
                          from delivery d left join (select id, '${delivered}'::text as state from changed) c on c.id = d.id
                         where d.message_id = m.id), '{}') as states
         from (select distinct message_id from changed) c
        cross join lateral (select * from message m where m.id = c.message_id limit 1) m
     ), derived as (
       select s.id, s.status as old_status, s.stage as old_stage, ${settledStatus.status} as status,
              ${settledStatus.stage} as stage
         from s
     ), settled as (
       -- Every message of the batch is written, its status changed or not: a new row version is
       -- what a concurrent result of a sibling delivery sees (unmoved), so it falls back to
       -- reading the states after its locks. Written only when the status changed, two writers'
       -- results for one message, each reading the other's delivery as still delivering, left it
       -- InProgress with every delivery delivered.
       update message m set status = v.status, stage = v.stage, updated_at = ${p.at}
         from derived v where m.id = v.id
       returning m.id, v.old_status, v.status, (v.status <> v.old_status or v.stage <> v.old_stage) as moved
     )${along?.ctes ?? ''}, lines as (
       insert into message_history (message_id, created_at, kind, old_status, new_status, text, delivery_id, target,
                                    old_state, new_state)
       select message_id, greatest(${p.at}::timestamptz, clock_timestamp()), kind, old_status, new_status, text, delivery_id, target, old_state, new_state from (
         select c.message_id, 'delivery_changed' as kind, null as old_status, null as new_status, c.text,
                c.id as delivery_id, c.target, 'delivering' as old_state, '${delivered}' as new_state, 1 as ord
           from changed c
         union all
         select v.id, 'status_changed', v.old_status, v.status, null, null, null, null, null, 2
           from settled v where v.status <> v.old_status${along?.lines ?? ''}
       ) l order by message_id, ord, delivery_id
     )
     select (select ok from unmoved) as unmoved, (select coalesce(json_agg(c), '[]') from changed c) as changed,
            (select coalesce(json_agg(v.status), '[]') from settled v where v.moved) as statuses${along?.select ?? ''}`,
    values,
  );
  if (!row!.unmoved) return null;
  const changed = new Map(row!.changed.map((c) => [Number(c.id), c]));
  for (const c of changed.values()) {
    ended.push({
      message_id: c.message_id,
      delivery_id: Number(c.id),
      target: c.target,
      state: delivered,
      attempts: c.attempts,
      elapsed_ms: at.getTime() - new Date(c.created_at).getTime(),
      last_error: '',
    });
  }
  return {
    applied: items.map((item) => firsts.get(item.delivery_id) === item && changed.has(item.delivery_id)),
    degraded: row!.statuses.some((status) => failedStatuses.includes(status)),
    claimed: claim ? claimedOf(row!.claimed ?? [], row!.more ?? false) : null,
  };
}

/**
 * Records a batch of results on `pool`, whichever thread holds them: plain successes in one
 * statement (resultsAtOnce), anything else in a transaction (resultBatch); the system's state
 * checked when a message became Error or Stalled. Per result, whether its claim was current.
 */
export async function recordResults(
  pool: Pool,
  at: Date,
  items: ResultItem[],
  ended: DeliveryEnd[],
): Promise<boolean[]> {
  return (await recordResultsAndClaim(pool, at, items, ended)).applied;
}

/**
 * recordResults, and with `claim` the target's next deliveries claimed too: in the results'
 * own statement when it takes them (resultsAtOnce), else by a claim of its own after them.
 */
export async function recordResultsAndClaim(
  pool: Pool,
  at: Date,
  items: ResultItem[],
  ended: DeliveryEnd[],
  claim?: ClaimAlong,
): Promise<{ applied: boolean[]; claimed: Claimed | null }> {
  const atOnce = await resultsAtOnce(direct(pool), at, items, ended, claim);
  if (atOnce?.degraded) await inTx(pool, (tx) => checkDegraded(tx, at));
  if (atOnce) return atOnce;
  const applied = await inTx(pool, (tx) => resultBatch(tx, at, items, ended));
  const claimed = claim ? await claimBatch(direct(pool), at, claim.node, claim.target, claim.limit) : null;
  return { applied, claimed };
}

/** Takes back claims (the holder stopped or crashed): the deliveries are queued and announced again. */
export async function releaseBatch(tx: Tx, at: Date, claims: HeldClaim[], reason: string): Promise<string[]> {
  const held = await lockHeld(tx, claims);
  if (held.size === 0) return [];
  const rows = [...held.values()];
  await applyChanges(
    tx,
    at,
    rows.map((r) => ({
      id: Number(r.id),
      state: deliveryTransitions.delivering.release!,
      next_attempt_at: null,
      finished_at: null,
      last_error: reason,
      dispatches: 1,
      next_dispatch_at: new Date(at.getTime() + stallWaitSeconds(0) * 1000),
    })),
    rows.map((r) => ({
      message_id: r.message_id,
      kind: 'delivery_changed',
      delivery_id: Number(r.id),
      target: r.target,
      old_state: 'delivering',
      new_state: 'queued',
      text: `Taken back: ${reason}`,
    })),
  );
  const targets = [...new Set(rows.map((r) => r.target))];
  await announce(tx, targets);
  return targets;
}
