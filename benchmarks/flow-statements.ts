/**
 * PostgreSQL's CPU for the receive path's two statements, measured one statement at a time:
 * the acceptance (acceptAtOnce, storing received AS2 messages with their four payload stages,
 * AS2 record and a delivery) and the results of those deliveries (resultsAtOnce, after a
 * claim that is not counted), on a database of their own with nothing else running there. The backends'
 * CPU is read from /proc/<pid>/schedstat (nanoseconds) before and after each statement, so a
 * change of a few per cent shows, which the whole receive benchmark cannot resolve on these
 * machines (their speed drifts more than that between runs).
 *
 * `--b-sql <file>`: a second database gets that SQL after its migrations (a dropped index, a
 * changed trigger…), and each round runs on both databases in turn, alternating which goes
 * first: A and B see the same drift. Without it, only A is measured.
 * Options: `--batch <list>` messages per statement (default 1,4,16), `--rounds <n>` per batch size
 * (default 400, the first 50 not counted).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { acceptAtOnce, type AcceptItem } from '../flow/commands/accept.js';
import { claimBatch } from '../flow/commands/claim-deliveries.js';
import { resultsAtOnce } from '../flow/commands/record-results.js';
import { FlowConfig } from '../flow/commands/flow-config.js';
import { defaultRetryPolicy } from '../flow/tables/schedule.js';
import { migrate, openDatabase, type Orm } from '../storage/db.js';
import { FlowConnections } from '../storage/flow-connections.js';
import { direct, inTx } from '../storage/sql.js';
import { benchDatabase, type BenchDatabase } from './lib/database.js';
import { postgresCpuByPid, runNsOf } from './lib/cpu.js';

const { values } = parseArgs({
  options: {
    batch: { type: 'string', default: '1,4,16' },
    rounds: { type: 'string', default: '400' },
    'b-sql': { type: 'string' },
  },
});
const batches = values.batch.split(',').map(Number);
const rounds = Number(values.rounds);
const warmUpRounds = 50;
if (rounds <= warmUpRounds) throw new Error(`--rounds must be more than ${warmUpRounds}`);

interface Variant {
  label: 'A' | 'B';
  db: BenchDatabase;
  orm: Orm;
  flow: FlowConnections;
  config: FlowConfig;
}

async function variant(label: 'A' | 'B', extraSql: string | undefined): Promise<Variant> {
  const db = await benchDatabase();
  const orm = await openDatabase(db.url);
  await migrate(orm);
  await inTx(orm, async (tx) => {
    await tx.all(`insert into organization (name) values ('bob')`);
    await tx.all(`insert into partner (name) values ('alice')`);
    await tx.all(
      `insert into route (name, source_plugin, from_party, to_party, target_plugin) values ('r', 'in', 'alice', 'bob', 'out')`,
    );
  });
  if (extraSql) {
    // The simple protocol takes several statements (and dollar-quoted bodies) in one string.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query(extraSql);
    await client.end();
  }
  return { label, db, orm, flow: new FlowConnections(orm), config: new FlowConfig() };
}

const line = "UNB+UNOC:3+ALICE:14+BOB:14+261121:1200+1'UNH+1+ORDERS:D:96A:UN'BGM+220+4711+9'\n";
const base64 = (bytes: Buffer) => bytes.toString('base64');
let sequence = 0;

/** A received AS2 message as the receiver offers it: sizes of the receive benchmark's messages. */
function offered(): AcceptItem {
  const n = sequence++;
  const messageId = `<bench-${n}-${randomUUID()}@alice.example>`;
  return {
    source_type: 'as2-receiver',
    source_name: 'in',
    message: {
      id: randomUUID(),
      from: 'alice',
      to: 'bob',
      file_name: 'orders.edi',
      payload: {
        stage: 'unpacked',
        size_bytes: 10240,
        content: base64(Buffer.from(`${n}:${line.repeat(130)}`.slice(0, 10240))),
      },
      as2_record: {
        direction: 'inbound',
        as2_message_id: messageId,
        as2_from: 'ALICE',
        as2_to: 'BOB',
        processed: true,
        info: {
          headers: { 'as2-from': 'ALICE', 'as2-to': 'BOB', 'message-id': messageId },
          layers: ['encrypted', 'signed', 'compressed'],
          mic: 'bench=, sha-256',
          mdn: {
            mode: 'sync',
            disposition: 'automatic-action/MDN-sent-automatically; processed',
            signed: true,
            message_id: `<receipt-${n}@bob.example>`,
          },
        },
        stages: [
          { stage: 'headers', size_bytes: 500, content: base64(randomBytes(500)) },
          { stage: 'received', size_bytes: 3160, content: base64(randomBytes(3160)) },
          { stage: 'receipt', size_bytes: 3170, content: base64(randomBytes(3170)) },
        ],
      },
    },
  };
}

interface Tally {
  acceptNs: number;
  resultsNs: number;
  statements: number;
}

/** One acceptance of `size` messages, then the results of their deliveries. */
async function round(v: Variant, size: number, pids: number[], tally: Tally | null): Promise<void> {
  const items = Array.from({ length: size }, offered);
  const before = runNsOf(pids);
  await acceptAtOnce(v.flow, new Date(), 1, items, v.config);
  const accepted = runNsOf(pids);
  const { deliveries: claimed } = await claimBatch(direct(v.flow), new Date(), 1, 'out', size);
  const between = runNsOf(pids);
  if (claimed.length !== size) throw new Error(`${size} deliveries expected claimed, got ${claimed.length}`);
  const results = claimed.map((d) => ({
    target: 'out',
    delivery_id: d.delivery_id,
    claim: d.claim,
    outcome: { ok: true as const },
    policy: defaultRetryPolicy,
  }));
  const outcome = await resultsAtOnce(direct(v.flow), new Date(), results);
  const after = runNsOf(pids);
  if (!outcome?.applied.every(Boolean)) throw new Error('a result was not applied');
  if (tally) {
    tally.acceptNs += accepted - before;
    tally.resultsNs += after - between;
    tally.statements++;
  }
}

const variants = [await variant('A', undefined)];
if (values['b-sql']) variants.push(await variant('B', readFileSync(values['b-sql'], 'utf8')));
const cases: Record<string, unknown>[] = [];
try {
  for (const size of batches) {
    const tallies = new Map(variants.map((v) => [v, { acceptNs: 0, resultsNs: 0, statements: 0 }]));
    let pids = new Map<Variant, number[]>();
    for (let r = 0; r < rounds; r++) {
      // The flow's connections open as the first rounds need them.
      if (r === 0 || r === warmUpRounds)
        pids = new Map(variants.map((v) => [v, [...postgresCpuByPid(v.db.name).keys()]]));
      const order = r % 2 === 0 ? variants : [...variants].reverse();
      for (const v of order) await round(v, size, pids.get(v)!, r >= warmUpRounds ? tallies.get(v)! : null);
    }
    for (const v of variants) {
      const t = tallies.get(v)!;
      const ms = (ns: number) => Math.round((ns / 1e6 / t.statements) * 1000) / 1000;
      const row = {
        batch: size,
        variant: v.label,
        accept_ms_per_statement: ms(t.acceptNs),
        results_ms_per_statement: ms(t.resultsNs),
        postgres_ms_per_message: ms((t.acceptNs + t.resultsNs) / size),
      };
      cases.push(row);
      process.stderr.write(`${JSON.stringify(row)}\n`);
    }
  }
} finally {
  for (const v of [...variants].reverse()) {
    await v.flow.close();
    await v.orm.close();
    await v.db.drop();
  }
}
console.log(JSON.stringify({ benchmark: 'flow-statements', rounds, cases }));
