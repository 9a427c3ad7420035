/**
 * Claims: a claim takes queued deliveries of one target under row locks that other claimers
 * skip (FOR NO KEY UPDATE SKIP LOCKED), so two processes never hold the same delivery; each
 * claim gets a number, and a result counts only for the current claim (record-results.ts).
 *
 * Locks, in the flow's order (docs/architecture.md, "Lock order of the message flow"): queued
 * `delivery` rows of one target, id order, FOR NO KEY UPDATE SKIP LOCKED (never waits); FOR KEY
 * SHARE on their `message` rows (history lines' foreign key); inserts `message_history`. Made
 * along with results (claimAlongSql), after the results' own locks.
 */
import type { ClaimedDelivery } from '../../protocol/core-protocol.js';
import { deliveryTransitions, statesFor } from '../tables/delivery-states.js';
import type { Tx } from '../tx.js';

/**
 * The states a claim takes, written into the statement's text (`'queued'`) rather than passed:
 * so the partial index on queued deliveries serves its generic plan too (with the states as a
 * parameter, that plan read every delivery the target ever had). Prepared, the claim is then
 * planned once per connection.
 */
const claimableStates = statesFor('claim')
  .map((state) => `'${state}'`)
  .join(', ');

/**
 * Claims up to `limit` queued deliveries of `target` in one statement: pick under SKIP LOCKED,
 * mark delivering with the next claim number, write the history lines, read what the actor
 * needs. queued -> delivering leaves every message status as it was (both are InProgress),
 * so a claim takes no message lock and writes no status. The message and payload of each claimed
 * delivery are read by one probe each (`lateral … limit 1`, which the planner cannot turn into
 * a join): as a join, the plan cached on a new installation hashed both tables whole.
 * `more`: deliveries of the target are still queued after those claimed (a probe of the
 * partial index on queued deliveries), so the target claims again at once; without it, a
 * target that claimed as many as it asked for claimed again to find nothing, one more
 * statement and commit per message at concurrency 1.
 */
export async function claimBatch(
  tx: Tx,
  at: Date,
  node: number,
  target: string,
  limit: number,
): Promise<Claimed> {
  // As the driver reads them: bigints as strings, the payload's bytes as a Buffer.
  const rows = await tx.prepared<
    Omit<ClaimedRow, 'id' | 'size_bytes' | 'content'> & {
      id: string;
      size_bytes: string | null;
      content: Buffer | null;
      more: boolean;
    }
  >(
    'claim-batch',
    `with picked as (
       select id from delivery where target = ? and state in (${claimableStates}) order by id limit ? for no key update skip locked
     ), claimed as (
       update delivery d set state = ?, attempts = d.attempts + 1, claims = d.claims + 1, claimed_by = ?,
              claimed_at = ?, updated_at = ?, next_dispatch_at = null
         from picked where d.id = picked.id
       returning d.id, d.message_id, d.target, d.attempts, d.claims
     ), lines as (
       insert into message_history (message_id, created_at, kind, delivery_id, target, old_state, new_state, text)
       select message_id, greatest(?::timestamptz, clock_timestamp()), 'delivery_changed', id, target, 'queued', 'delivering', 'Attempt ' || attempts from claimed
     )
     select c.id, c.message_id, c.attempts, c.claims, m.from_party, m.to_party, m.file_name, m.direction, p.size_bytes, p.content,
            exists (select 1 from delivery q where q.target = ? and q.state in (${claimableStates})
                       and q.id > (select max(id) from picked)) as more
       from claimed c
       cross join lateral (select * from message m where m.id = c.message_id limit 1) m
       left join lateral (select * from payload p where p.message_id = c.message_id and p.stage = 'unpacked' limit 1) p on true
      order by c.id`,
    [target, limit, deliveryTransitions.queued.claim!, node, at, at, at, target],
  );
  const deliveries = rows.map((r) =>
    claimedDelivery(
      r,
      r.message_id,
      r,
      Number(r.size_bytes ?? 0),
      r.content !== null ? r.content.toString('base64') : undefined,
    ),
  );
  return { deliveries, more: rows[0]?.more ?? false };
}

/** What a claim brought, and whether more of the target's deliveries are still queued. */
export interface Claimed {
  deliveries: ClaimedDelivery[];
  more: boolean;
}

/** A claim made along with a target's results (resultsAtOnce): whose, and how many at most. */
export interface ClaimAlong {
  node: number;
  target: string;
  limit: number;
}

/** A delivery claimed along with results, as the statement returns it (JSON, content in base64). */
export interface ClaimedRow {
  id: number;
  message_id: string;
  attempts: number;
  claims: number;
  from_party: string;
  to_party: string;
  file_name: string;
  direction: 'inbound' | 'outbound';
  size_bytes: number | null;
  content: string | null;
}

export const claimedOf = (rows: ClaimedRow[], more: boolean): Claimed => ({
  deliveries: rows.map((r) =>
    claimedDelivery(r, r.message_id, r, Number(r.size_bytes ?? 0), r.content ?? undefined),
  ),
  more,
});

/**
 * claimBatch's statement as parts of resultsAtOnce's: the same pick, update and history lines,
 * and the same reads, returned as JSON beside the results. A target whose deliveries finish
 * while more wait for it saves a statement and a commit per claim this way. Nothing is claimed
 * when the results are not taken (`unmoved` false): the caller claims after resultBatch then.
 * The inline content's base64 loses its line breaks by `replace`, not `translate`: translate
 * looks at each character on its own, and for a batch of 42 payloads of 10 KiB it took 9 ms of
 * the statement's 16 (benchmarks/history/2026-11-24-claimed-payloads-without-translate.md).
 */
export function claimAlongSql(p: Record<string, string>) {
  return {
    ctes: `, picked as (
       select id from delivery where target = ${p.target} and state in (${claimableStates}) and (select ok from unmoved)
        order by id limit ${p.limit} for no key update skip locked
     ), claimed as (
       update delivery d set state = '${deliveryTransitions.queued.claim!}', attempts = d.attempts + 1,
              claims = d.claims + 1, claimed_by = ${p.node}, claimed_at = ${p.at}, updated_at = ${p.at},
              next_dispatch_at = null
         from picked where d.id = picked.id
       returning d.id, d.message_id, d.target, d.attempts, d.claims
     )`,
    lines: `
         union all
         select c.message_id, 'delivery_changed', null, null, 'Attempt ' || c.attempts, c.id, c.target, 'queued',
                'delivering', 1
           from claimed c`,
    select: `,
            (select coalesce(json_agg(json_build_object(
                      'id', c.id, 'message_id', c.message_id, 'attempts', c.attempts, 'claims', c.claims,
                      'from_party', m.from_party, 'to_party', m.to_party, 'file_name', m.file_name,
                      'direction', m.direction, 'size_bytes', pl.size_bytes,
                      'content', replace(encode(pl.content, 'base64'), E'\n', '')) order by c.id), '[]')
               from claimed c
              cross join lateral (select * from message m where m.id = c.message_id limit 1) m
               left join lateral (select * from payload pl where pl.message_id = c.message_id and pl.stage = 'unpacked'
                                   limit 1) pl on true) as claimed,
            exists (select 1 from delivery q where q.target = ${p.target} and q.state in (${claimableStates})
                       and q.id > (select max(id) from picked)) as more`,
  };
}

/**
 * A delivery as a claim hands it to its target: the delivery with its claim and attempt
 * numbers, its message, and its `unpacked` payload (the bytes as base64 when kept inline).
 */
export function claimedDelivery(
  d: { id: string | number; claims: number; attempts: number },
  messageId: string,
  m: { from_party: string; to_party: string; file_name: string; direction: 'inbound' | 'outbound' },
  sizeBytes: number,
  content: string | undefined,
): ClaimedDelivery {
  return {
    delivery_id: Number(d.id),
    claim: d.claims,
    attempt: d.attempts,
    message: {
      id: messageId,
      from: m.from_party,
      to: m.to_party,
      file_name: m.file_name,
      direction: m.direction,
    },
    payload: { stage: 'unpacked', size_bytes: sizeBytes, ...(content !== undefined ? { content } : {}) },
  };
}
