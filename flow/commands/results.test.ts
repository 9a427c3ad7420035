// Covers recording delivery results on a real database, both ways the dispatcher does it: plain
// successes in one statement (resultsAtOnce) and any batch in a transaction (resultBatch). Each
// way: a delivered result settles its message with the history lines in order, a result of an
// old claim changes nothing, the same result twice counts once, and a message whose other
// delivery failed ends in Error. The one statement leaves to the transaction a message another
// transaction holds, whose deliveries it would read as they were before that one committed.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { migratedFlowDatabase } from '../../test/helpers/database.js';
import type { Orm } from '../../storage/db.js';
import type { FlowConnections } from '../../storage/flow-connections.js';
import { resultBatch, resultsAtOnce, type DeliveryEnd, type ResultItem } from './record-results.js';
import { defaultRetryPolicy } from '../tables/schedule.js';
import { direct, inTx } from '../tx.js';
import { settleAwaited } from './as2-records.js';

let orm: Orm;
let flow: FlowConnections;
t.before(async () => ({ orm, flow } = await migratedFlowDatabase(t)));

const at = new Date('2026-11-22T10:00:00Z');

/** A message in progress with a delivery per state given, each claimed once; their ids. */
async function message(states: string[]): Promise<{ id: string; deliveries: number[] }> {
  const id = randomUUID();
  const rows = await inTx(orm, async (tx) => {
    await tx.all(
      `insert into message (id, status, stage, direction, from_party, to_party, file_name, source_type,
                            source_name, accepted_by, created_at, updated_at)
       values (?, 'InProgress', 'dispatched', 'inbound', 'alice', 'bob', 'orders.edi', 'as2-receiver', 'in', 1, ?, ?)`,
      [id, at, at],
    );
    return tx.all<{ id: string }>(
      `insert into delivery (message_id, target, state, attempts, claims, dispatches, created_at, updated_at)
       select ?, 'out-' || n, s, 1, 1, 0, ?, ? from unnest(?::text[]) with ordinality as x(s, n)
       returning id`,
      [id, at, at, `{${states.join(',')}}`],
    );
  });
  return { id, deliveries: rows.map((r) => Number(r.id)) };
}

const delivered = (delivery_id: number, claim = 1): ResultItem => ({
  target: 'out',
  delivery_id,
  claim,
  outcome: { ok: true, detail: `Written to ${delivery_id}.edi` },
  policy: defaultRetryPolicy,
});

async function stored(messageId: string) {
  return inTx(orm, async (tx) => ({
    message: (await tx.all(`select status, stage from message where id = ?`, [messageId]))[0],
    deliveries: await tx.all(`select state, last_error from delivery where message_id = ? order by id`, [
      messageId,
    ]),
    history: await tx.all(
      `select kind, old_state, new_state, old_status, new_status, text from message_history
        where message_id = ? order by id`,
      [messageId],
    ),
  }));
}

const ways = {
  'in one statement': async (items: ResultItem[], ended: DeliveryEnd[]) =>
    (await resultsAtOnce(direct(flow), at, items, ended))!.applied,
  'in a transaction': (items: ResultItem[], ended: DeliveryEnd[]) =>
    inTx(flow, (tx) => resultBatch(tx, at, items, ended)),
};

for (const [way, record] of Object.entries(ways)) {
  t.test(way, async (t) => {
    t.test('a delivered result settles its message, history in order', async (t) => {
      const m = await message(['delivering']);
      const ended: DeliveryEnd[] = [];
      t.same(await record([delivered(m.deliveries[0]!)], ended), [true]);
      t.same(await stored(m.id), {
        message: { status: 'Delivered', stage: 'settled' },
        deliveries: [{ state: 'delivered', last_error: '' }],
        history: [
          {
            kind: 'delivery_changed',
            old_state: 'delivering',
            new_state: 'delivered',
            old_status: null,
            new_status: null,
            text: `Written to ${m.deliveries[0]}.edi`,
          },
          {
            kind: 'status_changed',
            old_state: null,
            new_state: null,
            old_status: 'InProgress',
            new_status: 'Delivered',
            text: null,
          },
        ],
      });
      t.match(ended, [{ message_id: m.id, delivery_id: m.deliveries[0], state: 'delivered', attempts: 1 }]);
    });

    t.test('a result of an old claim changes nothing', async (t) => {
      const m = await message(['delivering']);
      const before = await stored(m.id);
      t.same(await record([delivered(m.deliveries[0]!, 2)], []), [false]);
      t.same(await stored(m.id), before);
    });

    t.test('the same result twice in a batch counts once', async (t) => {
      const m = await message(['delivering']);
      t.same(await record([delivered(m.deliveries[0]!), delivered(m.deliveries[0]!)], []), [true, false]);
      t.equal((await stored(m.id)).history.length, 2, 'one delivery line and one status line');
    });

    t.test('a message whose other delivery failed ends in Error', async (t) => {
      const m = await message(['failed', 'delivering', 'delivering']);
      t.same(await record([delivered(m.deliveries[1]!)], []), [true]);
      t.match(await stored(m.id), { message: { status: 'InProgress' } }, 'one delivery still in flight');
      t.same(await record([delivered(m.deliveries[2]!)], []), [true]);
      t.match(await stored(m.id), { message: { status: 'Error', stage: 'settled' } });
    });
  });
}

t.test('one statement takes only plain successes, and says when a message ended in Error', async (t) => {
  const m = await message(['failed', 'delivering']);
  const failure: ResultItem = {
    ...delivered(m.deliveries[1]!),
    outcome: { ok: false, retryable: false, error: 'Disk full' },
  };
  t.equal(await resultsAtOnce(direct(flow), at, [failure]), null, 'a failure is left to the transaction');
  t.same(await resultsAtOnce(direct(flow), at, [delivered(m.deliveries[1]!)]), {
    applied: [true],
    degraded: true,
    claimed: null,
  });
});

t.test('one statement leaves a message held by another transaction to the transaction', async (t) => {
  const m = await message(['awaiting_ack', 'delivering']);
  let atOnce: ReturnType<typeof resultsAtOnce> | undefined;
  await inTx(orm, async (tx) => {
    // A negative receipt fails the other delivery; the result arrives before it commits.
    await settleAwaited(tx, at, m.id, m.deliveries[0]!, false, 'The partner refused it');
    atOnce = resultsAtOnce(direct(flow), at, [delivered(m.deliveries[1]!)]);
    await new Promise((resolve) => setTimeout(resolve, 200));
  });
  t.equal(await atOnce, null, 'not recorded in one statement');
  t.same(await inTx(flow, (tx) => resultBatch(tx, at, [delivered(m.deliveries[1]!)])), [true]);
  t.match(await stored(m.id), {
    message: { status: 'Error', stage: 'settled' },
    deliveries: [{ state: 'failed' }, { state: 'delivered' }],
  });
});
