/**
 * A database that has grown: `count` received AS2 messages from ALICE (partner `alice`) to BOB
 * (organization `bob`), delivered by the file-writer `out`, with their payload stages, history
 * lines and as2_message rows, as pier stores them. Written by a few set-based statements and
 * left without ANALYZE, as an operator's database is when autovacuum lags (off on the shared
 * test cluster), so the planner knows nothing of the rows.
 */
import pg from 'pg';

/** Run on a migrated database; one connection, so the temporary table is seen by every statement. */
export async function preloadMessages(url: string, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const run = (sql: string) => client.query(sql.replace(/\?/g, String(Math.floor(count))));
  await run(`create temporary table preload as
               select gen_random_uuid() as id, n, now() - make_interval(secs => ? - n) as at
                 from generate_series(1, ?) as n`);
  await run(`insert into message (id, status, stage, direction, from_party, to_party, file_name, source_type,
                                  source_name, accepted_by, created_at, updated_at)
             select id, 'Delivered', 'settled', 'inbound', 'alice', 'bob', 'orders.edi', 'as2-receiver', 'in', 1, at, at
               from preload`);
  await run(`insert into payload (message_id, stage, size_bytes, stored_at, content)
             select id, s.stage, 10240, at, null from preload, unnest(array['headers', 'received', 'unpacked', 'receipt']) as s(stage)
             `);
  await run(`insert into delivery (message_id, target, state, attempts, claims, dispatches, created_at, updated_at, finished_at)
             select id, 'out', 'delivered', 1, 1, 1, at, at, at from preload`);
  await run(`insert into message_history (message_id, created_at, kind, old_status, new_status, text)
             select id, at, 'status_changed', k.old, k.new, 'Accepted from as2-receiver in'
               from preload, (values (null, 'Received'), ('Received', 'Dispatched'), ('Dispatched', 'Delivered')) as k(old, new)
             `);
  await run(`insert into as2_message (message_id, direction, as2_message_id, as2_from, as2_to, processed, info,
                                      created_at, updated_at)
             select id, 'inbound', '<preload-' || n || '@alice.example>', 'ALICE', 'BOB', true, '{}', at, at
               from preload`);
  await run('drop table preload');
  await client.end();
}
