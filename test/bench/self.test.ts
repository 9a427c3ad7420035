// Covers `pier bench self` (on DATABASE_URL's server, and on an install's embedded PostgreSQL, started for the run and stopped after): a pier of this checkout started in a process of its own on a scratch database next to the install's, set up with a receiver, a route and a file-writer, fired at with every receipt checked and its CPU per message measured, the documents written counted (warm-up included), and everything removed afterwards: no scratch database left on the server and nothing added to the install's own database.
import { existsSync } from 'node:fs';
import { chmod } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { runningEmbeddedPort } from '../../storage/embedded-postgres.js';
import { createMigratedDatabase, sql } from '../helpers/database.js';
import { tempDir } from '../helpers/flow.js';
import { freePort } from '../helpers/free-port.js';
import { runPier } from '../helpers/pier-shell.js';

void t.test('a run end to end, and nothing left behind', async (t) => {
  const install = await createMigratedDatabase();
  t.teardown(() => install.drop());
  const scratchBefore = await sql<{ datname: string }>(
    install.url,
    "select datname from pg_database where datname like 'pier_bench_self_%'",
  );

  const run = await runPier(
    ['bench', 'self', '--messages', '8', '--concurrency', '2', '--warm-up', '2', '--json'],
    { DATABASE_URL: install.url },
  );
  t.equal(run.code, 0, run.stderr);
  const r = JSON.parse(run.stdout);
  t.equal(r.passed, true);
  t.equal(r.cases.length, 1);
  t.equal(r.cases[0].ok, 8);
  t.ok(r.cases[0].cpu.server_ms_per_msg > 0, 'the server’s CPU per message, from its process');
  t.ok(r.cases[0].cpu.rsa2048_ops_per_msg > 0);
  t.equal(r.cases[0].cpu.until, 'delivered', 'the CPU is counted up to the case’s last document');
  t.equal(r.cases[0].delivered.expected, 8);
  t.equal(r.cases[0].delivered.written, 8, 'the case ends when its eight documents are written');
  t.ok(
    r.cases[0].delivered.seconds >= r.cases[0].seconds,
    'until the last document is at least until the last receipt',
  );
  t.ok(r.cases[0].delivered.msg_per_s > 0 && r.cases[0].delivered.msg_per_s <= r.cases[0].msg_per_s);
  t.ok(r.endpoints[0].serverPid > 0 && r.endpoints[0].serverPid !== process.pid);
  t.same(r.delivered.written, 10, 'every document written: 2 warm-up + 8');
  t.same(r.delivered.expected, 10);
  t.match(run.stderr, /making a key pair, a scratch database and a pier of this install/);

  const scratchAfter = await sql<{ datname: string }>(
    install.url,
    "select datname from pg_database where datname like 'pier_bench_self_%'",
  );
  t.same(scratchAfter, scratchBefore, 'the scratch database is dropped');
  const [organizations] = await sql<{ n: number }>(
    install.url,
    'select count(*)::int as n from organization',
  );
  t.equal(organizations!.n, 0, 'the install’s database is untouched');
  t.throws(() => process.kill(r.endpoints[0].serverPid, 0), 'the server it started has stopped');
});

void t.test(
  'an install on the embedded PostgreSQL (no DATABASE_URL): started for the run, stopped after',
  async (t) => {
    const dir = await tempDir(t, 'pier-bench-self-embedded-');
    // The embedded server runs as the postgres user, which must reach its directory.
    await chmod(dir, 0o755);
    const env = { PIER_DATA_DIR: path.join(dir, 'data'), PIER_EMBEDDED_PG_PORT: String(await freePort()) };
    const made = await runPier(['migrate'], env);
    t.equal(made.code, 0, made.stderr);
    const cluster = path.join(dir, 'data', 'postgres');
    t.ok(existsSync(path.join(cluster, 'PG_VERSION')), 'the install has its embedded PostgreSQL');
    t.equal(await runningEmbeddedPort(cluster), undefined, 'not running before');

    const run = await runPier(
      ['bench', 'self', '--messages', '4', '--concurrency', '2', '--warm-up', '0', '--json'],
      env,
    );
    t.equal(run.code, 0, run.stderr);
    const r = JSON.parse(run.stdout);
    t.equal(r.passed, true);
    t.equal(r.cases[0].ok, 4);
    t.equal(r.cases[0].delivered.written, 4, 'every document written');
    t.match(run.stderr, /making a key pair, a scratch database and a pier of this install/);
    t.equal(await runningEmbeddedPort(cluster), undefined, 'stopped again after the run');
  },
);
