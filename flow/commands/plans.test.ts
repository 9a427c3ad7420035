// Covers the flow's cached plans on a real database: plans made while the tables of a new
// installation were nearly empty probe the indexes of `delivery` and `message` instead of
// reading them whole (the flow's connections plan without sequential scans, the claim and the
// results, also together in one statement, read each message by a probe), so the plans kept while the tables grow to 30,000 rows
// stay cheap.
import t from 'tap';
import { migratedDatabase } from '../../test/helpers/database.js';
import type { Orm } from '../../storage/db.js';
import { FlowConnections } from '../../storage/flow-connections.js';
import { setReplanInterval } from '../../storage/sql.js';
import { claimBatch } from './claim-deliveries.js';
import { resultBatch, resultsAtOnce } from './record-results.js';
import { defaultRetryPolicy } from '../tables/schedule.js';
import { direct, inTx } from '../tx.js';

let orm: Orm;
let flow: FlowConnections;
t.before(async () => {
  ({ orm } = await migratedDatabase(t));
  // One connection, so every statement below runs on the connection whose plans are watched.
  flow = new FlowConnections(orm, 1);
  t.teardown(() => flow.close());
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

/**
 * Claims what is queued and reports each delivered, as a file writer does: by turns in one
 * statement, in a transaction (as when a batch holds more than plain successes), and in one
 * statement with a claim along.
 */
let rounds = 0;
async function deliverQueued(): Promise<number> {
  const { deliveries: claimed } = await claimBatch(direct(flow), at, 1, 'out', 100);
  const results = claimed.map((c) => ({
    target: 'out',
    delivery_id: c.delivery_id,
    claim: c.claim,
    outcome: { ok: true as const },
    policy: defaultRetryPolicy,
  }));
  const way = rounds++ % 3;
  const applied =
    way === 0
      ? (await resultsAtOnce(direct(flow), at, results))!.applied
      : way === 1
        ? await inTx(flow, (tx) => resultBatch(tx, at, results))
        : // A target's results with its next claim along (nothing is queued for `along`).
          (await resultsAtOnce(direct(flow), at, results, [], { node: 1, target: 'along', limit: 10 }))!
            .applied;
  return applied.filter(Boolean).length;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

/**
 * Indexes that may be read whole: they hold only what is in flight, not what the table grew to
 * (`delivery_delivering`: the deliveries being delivered now, as many as the targets' slots).
 */
const inFlightIndexes = ['delivery_delivering'];

/**
 * The reads of `delivery` or `message` in the plan the flow's connection runs a prepared
 * statement with (its cached generic plan, made again first when it is due) that take the
 * table or an index whole: a sequential scan, or an index scan without a condition.
 */
async function wholeReads(statement: string, args: string): Promise<string[]> {
  const [row] = await direct(flow).all<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
    `explain (format json) execute "${statement}"(${args})`,
  );
  const found: string[] = [];
  const visit = (node: PlanNode) => {
    const table = node['Relation Name'];
    if (table === 'delivery' || table === 'message') {
      if (node['Node Type'] === 'Seq Scan') found.push(`Seq Scan on ${table}`);
      else if (node['Index Name'] && !node['Index Cond'] && !inFlightIndexes.includes(node['Index Name']))
        found.push(`${node['Node Type']} of ${node['Index Name']}, whole`);
    }
    node.Plans?.forEach(visit);
  };
  visit(row!['QUERY PLAN'][0]!.Plan);
  return found;
}

const lockHeldArgs = `'{1}'`;
/**
 * target, limit, new state, node, the time three times, and the target again (for `more`):
 * nothing is queued, so nothing changes.
 */
const claimArgs = `'out', 100, 'delivering', 1, now(), now(), now(), 'out'`;
/** The time, one result for a delivery that is not there, its id. */
const resultsArgs = `now(), '[{"id": 1, "claim": 1, "text": "Delivered"}]', '{1}'`;
/** The same, then the claim along: target, limit, node. */
const resultsAndClaimArgs = `${resultsArgs}, 'out', 100, 1`;

/** The flow's per-batch statements, each with the whole reads of its plan. */
async function flowPlans(): Promise<Record<string, string[]>> {
  return {
    claim: await wholeReads('claim-batch', claimArgs),
    'results in one statement': await wholeReads('results-at-once', resultsArgs),
    'results and claim in one statement': await wholeReads('results-at-once-and-claim', resultsAndClaimArgs),
    'results in a transaction: the lock': await wholeReads('result-lock-held', lockHeldArgs),
  };
}
const none = {
  claim: [],
  'results in one statement': [],
  'results and claim in one statement': [],
  'results in a transaction: the lock': [],
};

t.test('plans made on nearly empty tables probe indexes, and still do at 30,000 rows', async (t) => {
  setReplanInterval(3_600_000);
  // A new installation: a few messages claimed and delivered.
  for (let i = 0; i < 8; i++) {
    await queued(1);
    t.equal(await deliverQueued(), 1, 'the one queued delivery is claimed and reported');
  }
  t.same(await flowPlans(), none, 'on 8 rows, the claim and the results already probe the indexes');

  // Months later: 30,000 delivered messages, never analyzed (autovacuum off or behind).
  await queued(30_000);
  await inTx(orm, (tx) => tx.all(`update delivery set state = 'delivered' where state = 'queued'`));
  t.same(await flowPlans(), none, 'the plans kept from then do not read 30,000 rows for each batch');

  setReplanInterval(0);
  t.same(await flowPlans(), none, 'made again, they still probe');
  await queued(5);
  t.equal(await deliverQueued(), 5, 'every queued delivery is claimed and reported');
  const [row] = await inTx(orm, (tx) =>
    tx.all<{ delivered: string }>(`select count(*) as delivered from delivery where state = 'delivered'`),
  );
  t.equal(Number(row!.delivered), 8 + 30_000 + 5);
  const [settled] = await inTx(orm, (tx) =>
    tx.all<{ n: string }>(
      `select count(*) as n from message where status = 'Delivered' and stage = 'settled'`,
    ),
  );
  t.equal(Number(settled!.n), 8 + 5, 'the messages reported delivered are settled as Delivered');
});
