// Covers the flow's cached plans on a real database: plans made while the tables of a new
// installation were nearly empty probe the indexes of `delivery` and `message` instead of
// scanning them whole (the flow's transactions plan without sequential scans, the claim reads
// each message by a probe), so the plans kept while the tables grow to 30,000 rows stay cheap.
import t from 'tap';
import { createTestDatabase } from '../../test/helpers/database.js';
import { migrate, openDatabase, type Orm } from '../../storage/db.js';
import { setReplanInterval } from '../../storage/sql.js';
import { claimBatch, resultBatch } from './claims.js';
import { defaultRetryPolicy } from './schedule.js';
import { direct, inTx } from './tx.js';

let orm: Orm;
t.before(async () => {
  const database = await createTestDatabase();
  t.teardown(() => database.drop());
  // One connection, so every statement below runs on the connection whose plans are watched.
  orm = await openDatabase(database.url, { poolMax: 1 });
  t.teardown(() => orm.close());
  await migrate(orm);
});
t.teardown(() => setReplanInterval(5_000));

const at = new Date('2026-11-22T10:00:00Z');

/** `count` accepted messages, each with one queued delivery to `out`. */
async function queued(count: number): Promise<void> {
  await inTx(orm, async (tx) => {
    await tx.all(
      `with m as (
         insert into message (id, status, stage, direction, from_party, to_party, file_name, source_type,
                              source_name, accepted_by, created_at, updated_at)
         select gen_random_uuid(), 'Dispatched', 'dispatched', 'inbound', 'alice', 'bob', 'orders.edi',
                'as2-receiver', 'in', 1, ?, ?
           from generate_series(1, ?)
         returning id
       )
       insert into delivery (message_id, target, state, dispatches, created_at, updated_at)
       select id, 'out', 'queued', 1, ?, ? from m`,
      [at, at, count, at, at],
    );
  });
}

/** Claims what is queued and reports each delivered, as a file writer does. */
async function deliverQueued(): Promise<number> {
  const claimed = await claimBatch(direct(orm), at, 1, 'out', 100);
  await inTx(
    orm,
    (tx) =>
      resultBatch(
        tx,
        at,
        claimed.map((c) => ({
          target: 'out',
          delivery_id: c.delivery_id,
          claim: c.claim,
          outcome: { ok: true as const },
          policy: defaultRetryPolicy,
        })),
      ),
    { genericPlans: true },
  );
  return claimed.length;
}

/**
 * The plan the pool's connection runs a prepared statement of the flow with (generic, as in the
 * flow's transactions), as EXPLAIN shows it: the connection's cached plan, made again first
 * when it is due.
 */
async function planOf(statement: string, args: string): Promise<string> {
  const rows = await inTx(
    orm,
    (tx) => tx.all<{ 'QUERY PLAN': string }>(`explain execute "${statement}"(${args})`),
    {
      genericPlans: true,
    },
  );
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

const wholeScan = /Seq Scan on (delivery|message) /;
const lockHeldArgs = `'{1}'`;
/** target, limit, new state, node, and the time three times: nothing is queued, so nothing changes. */
const claimArgs = `'out', 100, 'delivering', 1, now(), now(), now()`;

t.test('plans made on nearly empty tables probe indexes, and still do at 30,000 rows', async (t) => {
  setReplanInterval(3_600_000);
  // A new installation: a few messages claimed and delivered.
  for (let i = 0; i < 8; i++) {
    await queued(1);
    t.equal(await deliverQueued(), 1, 'the one queued delivery is claimed and reported');
  }
  const lockHeld = await planOf('result-lock-held', lockHeldArgs);
  t.notMatch(lockHeld, wholeScan, 'on 8 rows, the results already probe the indexes');
  t.match(lockHeld, /delivery_pkey/);
  t.notMatch(await planOf('claim-batch', claimArgs), wholeScan, 'and so does the claim');

  // Months later: 30,000 delivered messages, never analyzed (autovacuum off or behind).
  await queued(30_000);
  await inTx(orm, (tx) => tx.all(`update delivery set state = 'delivered' where state = 'queued'`));
  t.notMatch(
    await planOf('result-lock-held', lockHeldArgs),
    wholeScan,
    'the plan kept from then does not read 30,000 rows for each batch of results',
  );
  t.notMatch(await planOf('claim-batch', claimArgs), wholeScan, 'nor for each claim');

  setReplanInterval(0);
  t.notMatch(await planOf('result-lock-held', lockHeldArgs), wholeScan, 'made again, it still probes');
  await queued(5);
  t.equal(await deliverQueued(), 5, 'every queued delivery is claimed and reported');
  const [row] = await inTx(orm, (tx) =>
    tx.all<{ delivered: string }>(`select count(*) as delivered from delivery where state = 'delivered'`),
  );
  t.equal(Number(row!.delivered), 8 + 30_000 + 5);
});
