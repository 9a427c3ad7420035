/**
 * GET /messages?q= at scale: stores `--messages` messages (default 1,000,000) with AS2 records,
 * receipts and deliveries, then times the list query the API runs (storage/repositories) for
 * each way of finding, and prints PostgreSQL's plan of each search (index or not).
 */
import { parseArgs } from 'node:util';
import type { EntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';
import { findMessages } from '../storage/repositories/messages.js';
import { migrate, openDatabase } from '../storage/db.js';
import { benchDatabase } from './lib/database.js';

const { values } = parseArgs({
  options: { messages: { type: 'string', default: '1000000' }, runs: { type: 'string', default: '15' } },
});
const count = Number(values.messages);
const runs = Number(values.runs);

const db = await benchDatabase();
const orm = await openDatabase(db.url);
try {
  await migrate(orm);
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const started = Date.now();
  console.error(`storing ${count} messages…`);
  await client.query(
    `insert into message (id, status, stage, direction, from_party, to_party, file_name, source_type, source_name,
                          accepted_by, created_at, updated_at)
     select md5(n::text)::uuid, 'Delivered', 'settled', case when n % 2 = 0 then 'inbound' else 'outbound' end,
            'acme', 'globex', 'Invoice-' || n || '.edi', 'as2-receiver', 'as2', 1,
            now() - n * interval '1 second', now()
       from generate_series(1, $1) n`,
    [count],
  );
  await client.query(
    `insert into as2_message (message_id, direction, as2_message_id, as2_from, as2_to, info)
     select md5(n::text)::uuid, case when n % 2 = 0 then 'inbound' else 'outbound' end, '<' || n || '@acme.example>',
            'ACME', 'GLOBEX', jsonb_build_object('mdn', jsonb_build_object('message_id', '<mdn-' || n || '@globex.example>'))
       from generate_series(1, $1) n`,
    [count],
  );
  await client.query(
    `insert into delivery (message_id, target, state, created_at, updated_at)
     select md5(n::text)::uuid, case when n % 100 = 0 then 'rare-target' else 'out' end, 'delivered', now(), now()
       from generate_series(1, $1) n`,
    [count],
  );
  await client.query('analyze');
  console.error(`stored in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const middle = Math.floor(count / 2) + 1;
  const cases: [string, Parameters<typeof findMessages>[1]][] = [
    ['file name (beginning, other case)', { q: `invoice-${middle}.`, limit: 50, offset: 0 }],
    ['AS2 Message-ID', { q: `${middle}@acme.example`, limit: 50, offset: 0 }],
    ['partner receipt Message-ID', { q: `<mdn-${middle}@globex.example>`, limit: 50, offset: 0 }],
    ['q matching nothing', { q: 'no-such-file', limit: 50, offset: 0 }],
    ['direction=inbound (first page)', { direction: 'inbound', limit: 50, offset: 0 }],
    ['target=rare-target (1 %)', { target: 'rare-target', limit: 50, offset: 0 }],
  ];
  const figures: Record<string, unknown> = { messages: count };
  for (const [name, filters] of cases) {
    const times: number[] = [];
    let found = 0;
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const { rows, total } = await findMessages(orm.em.fork() as EntityManager, filters);
      times.push(performance.now() - t0);
      found = Math.max(rows.length, total);
    }
    times.sort((a, b) => a - b);
    figures[name] = {
      found,
      median_ms: Number(times[Math.floor(runs / 2)]!.toFixed(2)),
      max_ms: Number(times.at(-1)!.toFixed(2)),
    };
    console.error(`${name}: found ${found}, median ${times[Math.floor(runs / 2)]!.toFixed(2)} ms`);
  }
  // The plan of the search alone: each way of finding is an index scan.
  const plan = await client.query(
    `explain select id from message where lower(file_name) like $1 escape '\\'
       union select message_id from as2_message where as2_message_id = any($2::text[])
       union select message_id from as2_message where (info -> 'mdn' ->> 'message_id') = any($2::text[])`,
    [`invoice-${middle}.%`, `{"${middle}@acme.example","<${middle}@acme.example>"}`],
  );
  const lines = plan.rows.map((r: Record<string, string>) => r['QUERY PLAN']!);
  console.error(lines.join('\n'));
  figures.plan_uses = [...new Set(lines.join('\n').match(/Index (?:Only )?Scan using \w+/g) ?? [])];
  await client.end();
  console.log(JSON.stringify(figures));
} finally {
  await orm.close();
  await db.drop();
}
