/**
 * Claims and results. A claim takes queued deliveries of one target under row locks that
 * other claimers skip (FOR UPDATE SKIP LOCKED), so two processes never hold the same
 * delivery; each claim gets a number, and a result counts only for the current claim.
 */
import type { ClaimedDelivery, DeliveryOutcome } from '../channels/core-protocol.js';
import type { HeldClaim } from '../supervisor/core-port.js';
import { deliveryTransitions, statesFor, type DeliveryState } from './delivery-states.js';
import { retryWaitSeconds, stallWaitSeconds, type RetryPolicy } from './schedule.js';
import {
  addHistory,
  announce,
  lockMessages,
  pgArray,
  settleMessages,
  type HistoryLine,
  type Tx,
} from './tx.js';

export async function claimBatch(
  tx: Tx,
  at: Date,
  node: number,
  target: string,
  limit: number,
): Promise<ClaimedDelivery[]> {
  // queued -> delivering leaves every message status as it was (both count as InProgress),
  // so a claim needs no message lock and no status update.
  const claimed = await tx.all<{ id: string; message_id: string; attempts: number; claims: number }>(
    `with picked as (
       select id from delivery where target = ? and state = any(?::text[]) order by id limit ? for update skip locked
     )
     update delivery d set state = ?, attempts = d.attempts + 1, claims = d.claims + 1, claimed_by = ?,
            claimed_at = ?, updated_at = ?, next_dispatch_at = null
       from picked where d.id = picked.id
     returning d.id, d.message_id, d.attempts, d.claims`,
    [target, pgArray(statesFor('claim')), limit, deliveryTransitions.queued.claim!, node, at, at],
  );
  if (claimed.length === 0) return [];
  const messages = await tx.all<{
    id: string;
    from_party: string;
    to_party: string;
    file_name: string;
    direction: 'inbound' | 'outbound';
    size_bytes: string | null;
  }>(
    `select m.id, m.from_party, m.to_party, m.file_name, m.direction, p.size_bytes
       from message m left join payload p on p.message_id = m.id and p.stage = 'unpacked'
      where m.id = any(?::uuid[])`,
    [pgArray(claimed.map((c) => c.message_id))],
  );
  const byId = new Map(messages.map((m) => [m.id, m]));
  await addHistory(
    tx,
    at,
    claimed.map((c) => ({
      message_id: c.message_id,
      kind: 'delivery_changed',
      delivery_id: Number(c.id),
      target,
      old_state: 'queued',
      new_state: 'delivering',
      text: `Attempt ${c.attempts}`,
    })),
  );
  return claimed
    .sort((a, b) => Number(a.id) - Number(b.id))
    .map((c) => {
      const m = byId.get(c.message_id)!;
      return {
        delivery_id: Number(c.id),
        claim: c.claims,
        attempt: c.attempts,
        message: {
          id: m.id,
          from: m.from_party,
          to: m.to_party,
          file_name: m.file_name,
          direction: m.direction,
        },
        payload: { stage: 'unpacked', size_bytes: Number(m.size_bytes ?? 0) },
      };
    });
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
}

/** Locks the messages of these deliveries, then the deliveries still held by the claims given. */
async function lockHeld(
  tx: Tx,
  claims: { delivery_id: number; claim: number }[],
): Promise<Map<number, Held>> {
  const ids = claims.map((c) => c.delivery_id);
  const owners = await tx.all<{ message_id: string }>(
    'select message_id from delivery where id = any(?::bigint[])',
    [pgArray(ids)],
  );
  await lockMessages(
    tx,
    owners.map((o) => o.message_id),
  );
  const rows = await tx.all<Held>(
    `select id, message_id, target, state, attempts, claims from delivery where id = any(?::bigint[]) for update`,
    [pgArray(ids)],
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

async function applyChanges(tx: Tx, at: Date, changes: Change[]): Promise<void> {
  await tx.all(
    `update delivery d set state = x.state, next_attempt_at = x.next_attempt_at, finished_at = x.finished_at,
            last_error = x.last_error, dispatches = x.dispatches, next_dispatch_at = x.next_dispatch_at, updated_at = ?
       from jsonb_to_recordset(?::jsonb) as x(id bigint, state text, next_attempt_at timestamptz,
            finished_at timestamptz, last_error text, dispatches int, next_dispatch_at timestamptz)
      where d.id = x.id`,
    [at, JSON.stringify(changes)],
  );
}

/** Records delivery results; answers, per item, whether its claim was still current. */
export async function resultBatch(tx: Tx, at: Date, items: ResultItem[]): Promise<boolean[]> {
  const held = await lockHeld(tx, items);
  const changes: Change[] = [];
  const lines: HistoryLine[] = [];
  const applied = items.map((item) => {
    const row = held.get(item.delivery_id);
    if (!row) return false;
    held.delete(item.delivery_id); // the same result twice in a batch counts once
    const o = item.outcome;
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
  if (changes.length > 0) {
    await applyChanges(tx, at, changes);
    await addHistory(tx, at, lines);
    await settleMessages(
      tx,
      at,
      lines.map((l) => l.message_id),
    );
  }
  return applied;
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
  );
  await addHistory(
    tx,
    at,
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
  await settleMessages(
    tx,
    at,
    rows.map((r) => r.message_id),
  );
  const targets = [...new Set(rows.map((r) => r.target))];
  await announce(tx, targets);
  return targets;
}
