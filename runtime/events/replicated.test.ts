// Covers runtime/events/replicated.ts on a PostgreSQL of its own (the embedded one, in a temporary
// directory): with no synchronous standby configured and no replication slot (a single server)
// what is read is handed out at once; with one configured and none connected (a primary restarted
// after kill -9 before its demotion), or only one that has just connected and reported nothing,
// or synchronous replication off while a slot is kept for a standby (pg_auto_failover's
// wait_primary), it is not, after the time given; a role that may not see the standbys'
// positions gets it at once.
import { chmod } from 'node:fs/promises';
import pg from 'pg';
import t from 'tap';
import { startEmbeddedPostgres } from '../../storage/embedded-postgres.js';
import { onOneConnection, type PgConnection } from '../../storage/sql.js';
import { freePort } from '../../test/helpers/free-port.js';
import { tempDir } from '../../test/helpers/flow.js';
import { readIsReplicated } from './replicated.js';

const dir = await tempDir(t, 'pier-replicated-');
// Run as root, the embedded PostgreSQL runs as the postgres user, which must reach its files.
await chmod(dir, 0o755);
const server = await startEmbeddedPostgres(dir, { port: await freePort(), database: 'postgres' });
t.teardown(() => server.stop());
const client = new pg.Client({ connectionString: server.url });
await client.connect();
t.teardown(() => client.end());
/** readIsReplicated on `on`'s one connection, giving up after `giveUpMs`. */
const replicated = (giveUpMs: number, on: pg.Client = client) =>
  onOneConnection(
    { acquireConnection: async () => on as unknown as PgConnection, releaseConnection: async () => {} },
    (db) => readIsReplicated(db, { pollMs: 5, giveUpMs }),
  );

const standbys = async (names: string) => {
  await client.query(`alter system set synchronous_standby_names = '${names}'`);
  await client.query('select pg_reload_conf()');
  // The reload reaches this backend at its next statement; asked until it has.
  for (let i = 0; i < 100; i++) {
    const { rows } = await client.query(`select current_setting('synchronous_standby_names') as names`);
    if (rows[0].names === names) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`synchronous_standby_names did not become '${names}'`);
};

t.test('no synchronous standby configured: what is read is handed out at once', async (t) => {
  await standbys('');
  t.equal(await replicated(1000), true);
});

t.test('synchronous replication off while a slot is kept for a standby: not handed out', async (t) => {
  await standbys('');
  await client.query(`select pg_create_physical_replication_slot('pgautofailover_standby_2')`);
  t.teardown(() => client.query(`select pg_drop_replication_slot('pgautofailover_standby_2')`));
  const started = Date.now();
  t.equal(await replicated(300), false, 'no standby has it');
  t.ok(Date.now() - started >= 300, 'after asking for the time given');
});

t.test('a standby configured and none connected: not handed out', async (t) => {
  await standbys('ANY 1 (pgautofailover_standby_2)');
  t.teardown(() => standbys(''));
  const started = Date.now();
  t.equal(await replicated(300), false, 'no standby has it');
  t.ok(Date.now() - started >= 300, 'after asking for the time given');
});

t.test('a standby that has connected and reported nothing yet: not handed out', async (t) => {
  await standbys('ANY 1 (pgautofailover_standby_2)');
  t.teardown(() => standbys(''));
  // A physical replication connection is a walsender from its start: pg_stat_replication shows it,
  // in state startup, with null positions, as it shows a standby before its first report.
  const url = new URL(server.url);
  url.searchParams.set('replication', 'true');
  url.searchParams.set('application_name', 'pgautofailover_standby_2');
  const walsender = new pg.Client({ connectionString: url.href });
  await walsender.connect();
  t.teardown(() => walsender.end());
  const { rows } = await client.query<{ state: string; flush_lsn: string | null }>(
    'select state, flush_lsn::text from pg_stat_replication',
  );
  t.same(rows, [{ state: 'startup', flush_lsn: null }], 'the standby is seen, with no position');
  t.equal(await replicated(300), false, 'no standby has it');
});

t.test('a role that may not see the standbys: handed out at once, as before', async (t) => {
  // Before the standby is asked for: with it, a commit waits for a standby that never comes.
  await client.query("create role pier_reader login password 'reader'");
  t.teardown(() => client.query('drop role pier_reader'));
  await standbys('ANY 1 (pgautofailover_standby_2)');
  t.teardown(() => standbys(''));
  const url = new URL(server.url);
  url.username = 'pier_reader';
  url.password = 'reader';
  const reader = new pg.Client({ connectionString: url.href });
  await reader.connect();
  t.teardown(() => reader.end());
  t.equal(await replicated(1000, reader), true);
});
