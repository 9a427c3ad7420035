// Covers the acknowledgement sweep's plans on a real database: with 5,000 interchanges whose statistics were taken while all were pending (autovacuum off, as when it lags behind a burst), reading the pending ones and recording a batch reach their rows through indexes, never a sequential scan of edi_interchange or message, and return what a sweep needs: the 30 pending, oldest first, and each of them recorded once.
import t from 'tap';
import { migratedDatabase, sql } from '../../test/helpers/database.js';
import type { Orm } from '../../storage/db.js';
import {
  pendingInterchanges,
  pendingInterchangesStatement,
  recordInterchanges,
  recordInterchangesStatement,
  type FoundInterchange,
  type SweepStatement,
} from './edi-acks.js';
import { inTx } from '../tx.js';
import { planNodes, type ExplainRow } from '../../test/helpers/plans.js';

let orm: Orm;
let url: string;
t.before(async () => {
  ({ orm, url } = await migratedDatabase(t));
});

const interchanges = 5_000;
const stillPending = 30;

/** The tables the statement's plan reads whole. */
async function wholeReads(statement: SweepStatement): Promise<string[]> {
  const [row] = await inTx(orm, (tx) =>
    tx.all<ExplainRow>(`explain (format json) ${statement.sql}`, statement.params),
  );
  return planNodes(row!)
    .filter(
      (n) => n['Node Type'] === 'Seq Scan' && ['edi_interchange', 'message'].includes(n['Relation Name']!),
    )
    .map((n) => `Seq Scan on ${n['Relation Name']}`);
}

t.test('on statistics from when all were pending, the sweep probes indexes', async (t) => {
  for (const table of ['message', 'edi_interchange']) {
    await sql(url, `alter table ${table} set (autovacuum_enabled = off)`);
  }
  // One interchange a minute, every one pending when the statistics are taken.
  await sql(
    url,
    `with m as (
       insert into message (id, status, stage, direction, from_party, to_party, file_name, source_type,
                            source_name, accepted_by, created_at, updated_at)
       select gen_random_uuid(), 'Delivered', 'settled', 'outbound', 'acme', 'globex', 'f' || i || '.edi',
              'file-poller', 'in', 1, timestamptz '2026-11-01' + i * interval '1 minute',
              timestamptz '2026-11-01' + i * interval '1 minute'
         from generate_series(1, $1::int) as i
       returning id, created_at
     )
     insert into edi_interchange (message_id, standard, version, sender_qualifier, sender_id, receiver_qualifier,
                                  receiver_id, interchange_control, group_controls, document_types)
     select id, 'x12', '00401', 'ZZ', 'ACME', 'ZZ', 'GLOBEX', '000000001', '{1}', '{850}' from m`,
    [interchanges],
  );
  await sql(url, 'analyze message');
  await sql(url, 'analyze edi_interchange');
  // Then the sweeps recorded all but the newest few; the statistics still say all are pending.
  await sql(
    url,
    `update edi_interchange set pending = false
      where message_id not in (select id from message order by created_at desc limit $1)`,
    [stillPending],
  );

  const pending = await inTx(orm, (tx) => pendingInterchanges(tx, 100));
  t.equal(pending.length, stillPending, 'the pending interchanges, all of them');
  // The driver gives timestamps as PostgreSQL's text; compared as instants.
  const times = pending.map((p) => new Date(p.created_at).getTime());
  t.same(
    times,
    [...times].sort((a, b) => a - b),
    'oldest first',
  );
  const found: FoundInterchange[] = pending.map((p) => ({
    message_id: p.message_id,
    outcome: { kind: 'nothing' },
  }));
  t.same(await wholeReads(pendingInterchangesStatement(100)), [], 'reading the pending ones');
  t.same(await wholeReads(recordInterchangesStatement(found)), [], 'recording a batch');

  const recorded = await inTx(orm, (tx) => recordInterchanges(tx, found));
  t.equal(recorded.length, stillPending, 'each recorded');
  t.same(await inTx(orm, (tx) => pendingInterchanges(tx, 100)), [], 'none left pending');
});
