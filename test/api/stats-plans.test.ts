// Covers GET /stats on a long history: with 60,000 messages, their deliveries and 180,000 history lines written and never analyzed (autovacuum off, so the planner knows only the tables' sizes), EXPLAIN of each statement /stats runs shows it reaching its rows through an index, never a sequential scan of message, delivery or message_history (and still once analyzed); the event stream's reads of announced lines and of a replay do the same; and the answer counts exactly what was written.
import t, { type Test } from 'tap';
import { failedStatuses, inFlightStatuses } from '../../flow/tables/status.js';
import { statsStatements } from '../../storage/repositories/message-counts.js';
import { feedStatements } from '../../runtime/events/history-feed.js';
import { sql } from '../helpers/database.js';
import { planNodes, type ExplainRow, type PlanNode } from '../helpers/plans.js';
import { startTestServer } from '../helpers/server.js';
import { SharedClock } from '../../protocol/clock.js';

const now = new Date('2026-06-01T12:00:00.000Z');
const server = await startTestServer(t, {
  clock: SharedClock.stoppedAt(now.getTime()),
  runtime: { timers: false },
});
const messages = 60_000;

// Autovacuum would analyze the tables after the load; the point is a planner without statistics.
for (const table of ['message', 'delivery', 'message_history']) {
  await sql(server.db.url, `alter table ${table} set (autovacuum_enabled = off)`);
}
// One message every 86.4 s over 60 days back from `now`: 1,000 a day. Every 50th failed
// (Error), every 40th still in flight (Retrying), the others delivered; even ones outbound.
await sql(
  server.db.url,
  `insert into message (id, status, stage, direction, from_party, to_party, file_name, source_type,
                        source_name, accepted_by, created_at, updated_at)
   select gen_random_uuid(),
          case when i % 50 = 0 then 'Error' when i % 40 = 1 then 'Retrying' else 'Delivered' end,
          case when i % 40 = 1 then 'dispatched' else 'settled' end,
          case when i % 2 = 0 then 'outbound' else 'inbound' end,
          'acme', 'globex', 'f' || i || '.edi', 'file-poller', 'in', 1,
          $1::timestamptz - i * interval '86.4 seconds', $1::timestamptz - i * interval '86.4 seconds'
     from generate_series(1, $2::int) as i`,
  [now, messages],
);
await sql(
  server.db.url,
  `insert into delivery (message_id, target, state, attempts, created_at, updated_at, finished_at)
   select id, 'out', case status when 'Error' then 'failed' when 'Retrying' then 'retrying' else 'delivered' end,
          1, created_at, created_at, created_at
     from message`,
);
await sql(
  server.db.url,
  `insert into message_history (message_id, created_at, kind, old_status, new_status)
   select m.id, m.created_at + s.n * interval '1 second', 'status_changed',
          case s.n when 0 then null when 1 then 'Received' else 'InProgress' end,
          case s.n when 0 then 'Received' when 1 then 'InProgress' else m.status end
     from message m cross join generate_series(0, 2) as s(n)`,
);

async function plan(statement: { sql: string; params: unknown[] }): Promise<PlanNode[]> {
  const [row] = await server.ctx.orm.em
    .getConnection()
    .execute<ExplainRow[]>(`explain (format json) ${statement.sql}`, statement.params);
  return planNodes(row!);
}

t.test('the tables are not analyzed: the planner has no statistics', async (t) => {
  const rows = await sql<{ relname: string; reltuples: number }>(
    server.db.url,
    `select relname, reltuples from pg_class where relname in ('message', 'delivery', 'message_history') order by relname`,
  );
  t.same(
    rows.map((r) => [r.relname, Number(r.reltuples)]),
    [
      ['delivery', -1],
      ['message', -1],
      ['message_history', -1],
    ],
    'reltuples -1: never analyzed nor vacuumed',
  );
  const stats = await sql(
    server.db.url,
    `select 1 from pg_stats where tablename in ('message', 'delivery', 'message_history')`,
  );
  t.equal(stats.length, 0, 'no column statistics');
});

async function readsThroughIndexes(t: Test, statement: { sql: string; params: unknown[] }) {
  const nodes = await plan(statement);
  const scans = nodes.filter((n) => n['Relation Name']);
  t.ok(scans.length > 0, 'it reads a table');
  for (const scan of scans) {
    t.not(scan['Node Type'], 'Seq Scan', `${scan['Relation Name']} is not scanned whole`);
    t.match(scan['Node Type'], /Index|Bitmap Heap Scan/, `${scan['Relation Name']}: ${scan['Node Type']}`);
  }
  t.ok(
    nodes.some((n) => n['Index Name']),
    `an index is used (${nodes.map((n) => n['Index Name'] ?? n['Node Type']).join(', ')})`,
  );
}

const statements = statsStatements(now, { inFlight: inFlightStatuses, failed: failedStatuses });
for (const [name, statement] of Object.entries(statements)) {
  t.test(`/stats statement "${name}" reads through an index`, (t) => readsThroughIndexes(t, statement));
}

// The event stream reads the same long history: the settled lines live, a replay after an id.
// The last line is read inside the tests: a top-level await between tests let the root test
// end first on a busy machine ("cannot create subtest after parent test ends").
async function feedReads() {
  const [{ last, message }] = (await sql<{ last: string; message: string }>(
    server.db.url,
    'select id as last, message_id as message from message_history order by id desc limit 1',
  )) as [{ last: string; message: string }];
  const lastId = Number(last);
  return {
    live: feedStatements.between(lastId - 900, lastId, undefined, 1000),
    replay: feedStatements.between(lastId - 500, lastId - 20, undefined, 1000),
    'replay of one message': feedStatements.between(lastId - 500, lastId, message, 1000),
  };
}

t.test("the event stream's reads reach lines through an index", async (t) => {
  for (const [name, statement] of Object.entries(await feedReads())) {
    await t.test(`"${name}"`, (t) => readsThroughIndexes(t, statement));
  }
});

t.test('GET /stats counts exactly what was written', async (t) => {
  const answer = await server.call('GET', '/api/v1/stats');
  t.equal(answer.status, 200);
  // Message i was created i × 86.4 s before now: i ≤ 1000 within 24 hours, i ≤ 7000 within 7 days.
  const within = (last: number, keep: (i: number) => boolean) =>
    Array.from({ length: last }, (_, k) => k + 1).filter(keep).length;
  const failedLast24h = within(1000, (i) => i % 50 === 0);
  t.match(answer.body.data, {
    messages_last_24h: 1000,
    sent_last_24h: within(1000, (i) => i % 2 === 0),
    received_last_24h: within(1000, (i) => i % 2 === 1),
    messages_last_7d: 7000,
    in_flight_messages: within(messages, (i) => i % 40 === 1 && i % 50 !== 0),
    failed_last_24h: failedLast24h,
    system_status: 'Degraded',
  });
});

t.test('and still once the tables are analyzed', async (t) => {
  await sql(server.db.url, 'analyze message, delivery, message_history');
  for (const [name, statement] of Object.entries({ ...statements, ...(await feedReads()) })) {
    await t.test(name, (t) => readsThroughIndexes(t, statement));
  }
});
