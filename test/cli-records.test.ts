// Covers the `pier` command for operators: api-tokens list|revoke, service-accounts
// list|disable|enable|delete, a failed embedded PostgreSQL start explained, and the embedded
// server found by its postmaster.pid (messages: test/cli-messages.test.ts).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { waitFor } from './helpers/wait.js';
import { runningEmbeddedPort } from '../storage/embedded-postgres.js';
import { sql } from './helpers/database.js';
import { pierShell } from './helpers/pier-shell.js';
import { startTestServer } from './helpers/server.js';
import { cliActor } from '../cli/session.js';

const { db, dataDir, pier, pierProcess } = await pierShell(t);

const server = await startTestServer(t, { db, env: { PIER_DATA_DIR: dataDir } });

t.test('service accounts and API tokens: list, revoke, disable, enable, delete', async (t) => {
  t.equal((await pier(['service-accounts', 'create', 'erp', '--description', 'ERP sync'])).code, 0);
  const made = await pier(['api-tokens', 'create', '--service-account', 'erp', '--label', 'nightly']);
  const token = made.stdout.trim();
  const accounts = await pier(['service-accounts', 'list']);
  t.match(accounts.stdout, /^erp\tlocal\tenabled\tnever used\tERP sync$/m);
  const tokens = await pier(['api-tokens', 'list']);
  const line = tokens.stdout.split('\n').find((l) => l.includes('\terp\tnightly\t'));
  t.match(line, /^\d+\terp\tnightly\tactive\t\d{4}-/, 'id, account, label, state, expiry');
  t.notMatch(tokens.stdout, token, 'never the value');

  t.equal((await pier(['service-accounts', 'disable', 'erp'])).stdout, 'Service account erp is disabled.\n');
  // The server hears of the change by NOTIFY from the command's commit, a moment later.
  const statusSoon = (want: number) =>
    waitFor(
      async () => {
        const status = (await server.call('GET', '/api/v1/organizations', { token })).status;
        return status === want ? status : undefined;
      },
      `status ${want}`,
      5_000,
    ).catch(async () => (await server.call('GET', '/api/v1/organizations', { token })).status);
  t.equal(await statusSoon(401), 401, 'a disabled account’s token fails');
  t.equal((await pier(['service-accounts', 'enable', 'erp'])).stdout, 'Service account erp is enabled.\n');
  t.equal(await statusSoon(200), 200, 'and works again once the account is enabled');

  const id = line!.split('\t')[0]!;
  t.equal((await pier(['api-tokens', 'revoke', id])).stdout, `API token ${id} is revoked.\n`);
  // As with disable, the server hears of the revocation by NOTIFY a moment after the command:
  // checked at once, a loaded machine served the cached token one more time.
  t.equal(await statusSoon(401), 401, 'a revoked token fails');
  const again = await pier(['api-tokens', 'revoke', '999999']);
  t.equal(again.code, 1);
  t.equal(again.stderr, 'pier: API token not found\n');

  t.equal((await pier(['service-accounts', 'delete', 'erp'])).stdout, 'Deleted service account erp.\n');
  const actions = await sql<{ action: string }>(
    db.url,
    "select action from audit_event where kind = 'service-account' and record_name = 'erp' and actor = $1 order by id",
    [cliActor()],
  );
  t.same(
    actions.map((a) => a.action),
    ['create', 'update', 'update', 'delete'],
  );
});

t.test('the embedded PostgreSQL: found by postmaster.pid, and a failed start says why', async (t) => {
  const pgDir = path.join(dataDir, 'fake-pg');
  await mkdir(pgDir, { recursive: true });
  await writeFile(
    path.join(pgDir, 'postmaster.pid'),
    `${process.pid}\n${pgDir}\n1\n54999\n/tmp\n127.0.0.1\n`,
  );
  t.equal(await runningEmbeddedPort(pgDir), 54999, 'a live process: its port, whatever the configured one');
  await writeFile(path.join(pgDir, 'postmaster.pid'), `999999999\n${pgDir}\n1\n54999\n`);
  t.equal(await runningEmbeddedPort(pgDir), undefined, 'a stale file is ignored');

  // A data directory whose database files are damaged: PostgreSQL refuses to start.
  const broken = path.join(dataDir, 'broken');
  await mkdir(path.join(broken, 'postgres'), { recursive: true });
  await writeFile(path.join(broken, 'postgres', 'PG_VERSION'), '18\n');
  const failed = await pierProcess(['users', 'list'], {
    DATABASE_URL: '',
    PIER_DATA_DIR: broken,
    PIER_EMBEDDED_PG_PORT: '1',
  });
  t.equal(failed.code, 1);
  t.match(
    failed.stderr,
    /^pier: The embedded PostgreSQL under .*broken\/postgres did not start on port 1: \S/,
  );
  t.notMatch(failed.stderr, /undefined/);
});
