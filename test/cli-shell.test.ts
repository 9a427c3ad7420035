// Covers the `pier` command for operators: settings show|set with the API's validation
// and audit, the start-up failure that names `pier settings set`, --verbose, the environment in
// --help and exit codes 0/1/2 (records and messages: test/cli-records.test.ts).
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { withoutPassword } from '../storage/connect.js';
import { sql } from './helpers/database.js';
import { pierShell } from './helpers/pier-shell.js';
import { startTestServer } from './helpers/server.js';
import { cliActor } from '../cli/session.js';

const { db, dataDir, pier, pierProcess } = await pierShell(t);

const server = await startTestServer(t, { db, env: { PIER_DATA_DIR: dataDir } });

t.test('every command says in --help which environment variables it reads; help exits 0', async (t) => {
  for (const command of [
    ['settings', 'set'],
    ['messages', 'list'],
  ]) {
    const help = await pier([...command, '--help']);
    t.equal(help.code, 0);
    t.match(
      help.stdout,
      /Environment:\n {2}DATABASE_URL .*\n {2}PIER_DATA_DIR /,
      `${command.join(' ')} --help`,
    );
  }
  t.match((await pier(['--help'])).stdout, /Exit codes: 0 success, 1 failure, 2 wrong usage/);
});

t.test('settings: show, set with validation and audit, usage errors exit 2', async (t) => {
  const shown = await pier(['--verbose', 'settings', 'show']);
  t.equal(shown.code, 0, shown.stderr);
  t.match(shown.stdout, /^storage_backend=local\n/);
  t.match(shown.stdout, /\ndelivery_max_dispatches=5\n/);
  // The URL as the CLI prints it: an embedded or test server's password masked, never shown.
  const printed = withoutPassword(db.url);
  t.match(
    shown.stderr,
    new RegExp(`^pier: connected to ${printed.replace(/[/.?*]/g, '\\$&')} \\(DATABASE_URL\\)`),
  );
  const password = new URL(db.url).password;
  if (password) t.notMatch(shown.stderr, `:${password}@`, 'the password is not printed');

  const outOfRange = await pier(['settings', 'set', 'delivery_max_dispatches=50']);
  t.equal(outOfRange.code, 1);
  t.equal(outOfRange.stderr, 'pier: Validation failed: delivery_max_dispatches: Must be at most 20\n');
  const refused = await pier(['settings', 'set', 'storage_backend=s3']);
  t.equal(refused.code, 1);
  t.equal(
    refused.stderr,
    'pier: Validation failed: storage_s3_bucket: Required for S3 storage; storage_s3_region: Required for S3 storage\n',
  );
  const usage = await pier(['settings', 'set', 'storage_backend']);
  t.equal(usage.code, 2);
  t.match(usage.stderr, /Write each setting as KEY=VALUE/);

  const set = await pier([
    'settings',
    'set',
    'delivery_max_dispatches=7',
    'identification_hide_version=true',
  ]);
  t.equal(set.code, 0, set.stderr);
  t.match(set.stdout, /\ndelivery_max_dispatches=7\nidentification_hide_version=true\n/);
  const [event] = await sql<{ actor: string; changes: { field: string; old: unknown; new: unknown }[] }>(
    db.url,
    "select actor, changes from audit_event where kind = 'settings' order by id desc limit 1",
  );
  t.equal(event!.actor, cliActor(), 'the local user who ran it');
  t.same(event!.changes, [
    { field: 'delivery_max_dispatches', old: 5, new: 7 },
    { field: 'identification_hide_version', old: false, new: true },
  ]);
  t.equal(
    (await server.call('GET', '/api/v1/settings')).body.data.delivery_max_dispatches,
    7,
    'the API sees it',
  );
});

t.test('a start that fails on the payload storage names the command that fixes it', async (t) => {
  const storeDir = path.join(dataDir, 'not-a-directory');
  await writeFile(storeDir, 'a file where the payload directory should be');
  const before = await sql<{ storage_local_directory: string }>(
    db.url,
    'select storage_local_directory from settings',
  );
  t.teardown(() =>
    sql(db.url, 'update settings set storage_local_directory = $1', [before[0]!.storage_local_directory]),
  );
  t.equal((await pier(['settings', 'set', `storage_local_directory=${storeDir}/payloads`])).code, 0);
  const start = await pierProcess(['serve'], { HTTP_PORT: '0', HTTP_HOST: '127.0.0.1' });
  t.equal(start.code, 1);
  const fatal = start.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { level: number; msg: string })
    .find((line) => line.level === 60);
  t.ok(fatal, 'the failure is a JSON line at level fatal');
  t.match(fatal!.msg, /cannot be used/);
  t.match(
    fatal!.msg,
    /`pier settings set storage_backend=local storage_local_directory=<a writable directory>`/,
  );
  t.equal(start.stderr, '', 'nothing but the JSON line');
  const fixed = await pier(['settings', 'set', `storage_local_directory=${path.join(dataDir, 'payloads')}`]);
  t.equal(fixed.code, 0, fixed.stderr);
});
