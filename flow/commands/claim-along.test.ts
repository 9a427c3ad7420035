// Covers claiming a target's next deliveries along with its results (recordResultsAndClaim) on a
// real database: in the results' own statement the result is recorded and the next queued
// deliveries are claimed in id order, with their message, inline payload, history line and
// whether more wait; a batch the statement does not take (a failure) is recorded in a
// transaction and the claim made after it; a result of an old claim changes nothing but the
// claim still goes.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { migratedFlowDatabase } from '../../test/helpers/database.js';
import type { Orm } from '../../storage/db.js';
import type { FlowConnections } from '../../storage/flow-connections.js';
import { recordResultsAndClaim, type DeliveryEnd, type ResultItem } from './record-results.js';
import { defaultRetryPolicy } from '../tables/schedule.js';
import { inTx } from '../tx.js';

let orm: Orm;
let flow: FlowConnections;
t.before(async () => ({ orm, flow } = await migratedFlowDatabase(t)));

const at = new Date('2026-11-23T10:00:00Z');
const node = 7;

/** A message with one delivery to `target` in `state` (claimed `claims` times); the delivery's id. */
async function deliveryOf(target: string, state: string, claims: number, content?: Buffer): Promise<number> {
  const id = randomUUID();
  return inTx(orm, async (tx) => {
    await tx.all(
      `insert into message (id, status, stage, direction, from_party, to_party, file_name, source_type,
                            source_name, accepted_by, created_at, updated_at)
       values (?, 'InProgress', 'dispatched', 'inbound', 'alice', 'bob', ?, 'as2-receiver', 'in', 1, ?, ?)`,
      [id, `${state}-${claims}.edi`, at, at],
    );
    if (content)
      await tx.all(
        `insert into payload (message_id, stage, size_bytes, stored_at, content) values (?, 'unpacked', ?, ?, ?)`,
        [id, content.length, at, content],
      );
    const [row] = await tx.all<{ id: string }>(
      `insert into delivery (message_id, target, state, attempts, claims, dispatches, created_at, updated_at)
       values (?, ?, ?, ?, ?, 0, ?, ?) returning id`,
      [id, target, state, claims, claims, at, at],
    );
    return Number(row!.id);
  });
}

const result = (delivery_id: number, ok: boolean, claim = 1): ResultItem => ({
  target: 'along',
  delivery_id,
  claim,
  outcome: ok
    ? { ok: true, detail: `Written to ${delivery_id}.edi` }
    : { ok: false, retryable: false, error: 'refused by the back office' },
  policy: defaultRetryPolicy,
});

async function stateOf(deliveryId: number) {
  const [row] = await inTx(orm, (tx) =>
    tx.all<{ state: string; claims: number; claimed_by: number | null }>(
      `select state, claims, claimed_by from delivery where id = ?`,
      [deliveryId],
    ),
  );
  return row!;
}

async function historyOf(deliveryId: number) {
  return inTx(orm, (tx) =>
    tx.all<{ old_state: string; new_state: string; text: string }>(
      `select old_state, new_state, text from message_history where delivery_id = ? order by id`,
      [deliveryId],
    ),
  );
}

t.test('a plain success claims the next deliveries in its own statement', async (t) => {
  const target = `along-${randomUUID()}`;
  const done = await deliveryOf(target, 'delivering', 1);
  const document = Buffer.from("UNB+UNOC:3+ALICE+BOB'\n".repeat(10));
  const next = [await deliveryOf(target, 'queued', 0, document), await deliveryOf(target, 'queued', 0)];
  const later = await deliveryOf(target, 'queued', 0);
  const ended: DeliveryEnd[] = [];
  const { applied, claimed } = await recordResultsAndClaim(
    flow,
    at,
    [{ ...result(done, true), target }],
    ended,
    {
      node,
      target,
      limit: 2,
    },
  );
  t.same(applied, [true], 'the result is recorded');
  t.equal((await stateOf(done)).state, 'delivered');
  t.same(
    ended.map((e) => e.delivery_id),
    [done],
    'the delivery that ended is reported for the log',
  );
  t.same(
    claimed!.deliveries.map((d) => [d.delivery_id, d.claim, d.attempt]),
    next.map((id) => [id, 1, 1]),
    'the next two are claimed, in id order, as their first claim and attempt',
  );
  t.equal(claimed!.more, true, 'one more waits');
  const first = claimed!.deliveries[0]!;
  t.equal(first.message.file_name, 'queued-0.edi');
  t.equal(first.message.direction, 'inbound');
  t.same(first.payload, {
    stage: 'unpacked',
    size_bytes: document.length,
    content: document.toString('base64'),
  });
  t.same(
    claimed!.deliveries[1]!.payload,
    { stage: 'unpacked', size_bytes: 0 },
    'no payload row: nothing inline',
  );
  for (const id of next) t.same(await stateOf(id), { state: 'delivering', claims: 1, claimed_by: node });
  t.same(await historyOf(next[0]!), [{ old_state: 'queued', new_state: 'delivering', text: 'Attempt 1' }]);
  t.equal((await stateOf(later)).state, 'queued', 'the third is left queued');

  const rest = await recordResultsAndClaim(flow, at, [{ ...result(next[0]!, true), target }], [], {
    node,
    target,
    limit: 5,
  });
  t.same(
    rest.claimed!.deliveries.map((d) => d.delivery_id),
    [later],
    'the last one',
  );
  t.equal(rest.claimed!.more, false, 'nothing more waits');
});

t.test('a failure is recorded in a transaction, and the claim made after it', async (t) => {
  const target = `along-${randomUUID()}`;
  const failed = await deliveryOf(target, 'delivering', 1);
  const next = await deliveryOf(target, 'queued', 0);
  const { applied, claimed } = await recordResultsAndClaim(
    flow,
    at,
    [{ ...result(failed, false), target }],
    [],
    {
      node,
      target,
      limit: 3,
    },
  );
  t.same(applied, [true]);
  t.equal((await stateOf(failed)).state, 'failed');
  t.same(claimed, { deliveries: [claimed!.deliveries[0]], more: false }, 'the claim took the one queued');
  t.equal(claimed!.deliveries[0]!.delivery_id, next);
});

t.test('a result of an old claim changes nothing, and the claim still goes', async (t) => {
  const target = `along-${randomUUID()}`;
  const held = await deliveryOf(target, 'delivering', 2);
  const next = await deliveryOf(target, 'queued', 0);
  const { applied, claimed } = await recordResultsAndClaim(
    flow,
    at,
    [{ ...result(held, true, 1), target }],
    [],
    {
      node,
      target,
      limit: 1,
    },
  );
  t.same(applied, [false], 'the old claim is not current');
  t.same(await stateOf(held), { state: 'delivering', claims: 2, claimed_by: null });
  t.same(
    claimed!.deliveries.map((d) => d.delivery_id),
    [next],
  );
});

t.test('without a claim, nothing is claimed', async (t) => {
  const target = `along-${randomUUID()}`;
  const done = await deliveryOf(target, 'delivering', 1);
  const next = await deliveryOf(target, 'queued', 0);
  const { applied, claimed } = await recordResultsAndClaim(flow, at, [{ ...result(done, true), target }], []);
  t.same(applied, [true]);
  t.equal(claimed, null);
  t.equal((await stateOf(next)).state, 'queued');
});
