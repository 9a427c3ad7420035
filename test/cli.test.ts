// Covers the `pier` command: migrate (once; and a migration the database has not recorded is
// applied, though every other is), service-accounts create, api-tokens create (the value alone
// on stdout, usable against the API), users add|list|enable|disable|remove, and clear failures.
import t from 'tap';
import { sql } from './helpers/database.js';
import { pierShell, runPierProcess, type Run } from './helpers/pier-shell.js';
import { startTestServer } from './helpers/server.js';
import { cliActor } from '../cli/session.js';

const shell = await pierShell(t);
const { db, dataDir } = shell;
/** Commands run in this process (test/helpers/pier-shell.ts); the connection failure below runs bin/pier-sources.js. */
const pier = (...args: string[]): Promise<Run> => shell.pier(args);

t.test('migrate applies migrations once', async (t) => {
  const first = await pier('migrate');
  t.equal(first.code, 0, first.stderr);
  t.match(first.stdout, /^Applied: Migration0001Foundation/);
  const again = await pier('migrate');
  t.equal(again.stdout, 'The database is up to date.\n');
});

t.test('a migration the database lacks is applied, though it records every other', async (t) => {
  // The last migration undone by hand: a start that saw the others recorded must not stop there.
  await sql(
    db.url,
    'drop index message_inbound_from; drop index message_outbound_to; drop index alert_partner_reach',
  );
  await sql(db.url, "delete from mikro_orm_migrations where name = 'Migration0230PartnerStatus'");
  const run = await pier('migrate');
  t.equal(run.code, 0, run.stderr);
  t.equal(run.stdout, 'Applied: Migration0230PartnerStatus\n');
  const indexes = await sql(
    db.url,
    "select indexname from pg_indexes where indexname in ('message_inbound_from', 'message_outbound_to', 'alert_partner_reach') order by 1",
  );
  t.same(
    indexes.map((row) => row.indexname),
    ['alert_partner_reach', 'message_inbound_from', 'message_outbound_to'],
    'its indexes are there again',
  );
});

t.test('a service account and a token made on the command line work against the API', async (t) => {
  const account = await pier('service-accounts', 'create', 'erp-sync', '--description', 'ERP pulls messages');
  t.equal(account.code, 0, account.stderr);
  t.equal(account.stdout, 'Created service account erp-sync.\n');
  const token = await pier(
    'api-tokens',
    'create',
    '--service-account',
    'erp-sync',
    '--label',
    'nightly',
    '--expires-in-days',
    '30',
  );
  t.equal(token.code, 0, token.stderr);
  t.match(token.stdout, /^pier_[0-9A-Za-z]{44}\n$/, 'the value alone on stdout');

  const server = await startTestServer(t, { db });
  const r = await server.call('GET', '/api/v1/service-accounts', { token: token.stdout.trim() });
  t.equal(r.status, 200);
  t.ok(
    r.body.data.service_accounts.some(
      (a: { name: string; description: string }) =>
        a.name === 'erp-sync' && a.description === 'ERP pulls messages',
    ),
  );
  const [event] = await sql<{ actor: string }>(
    db.url,
    "select actor from audit_event where kind = 'api-token' order by id limit 1",
  );
  t.equal(event!.actor, cliActor(), 'the command line is recorded as the local user');
  t.match(event!.actor, /^cli:\S+$/);
});

t.test('failures are explained and exit non-zero', async (t) => {
  const dup = await pier('service-accounts', 'create', 'erp-sync');
  t.equal(dup.code, 1);
  t.equal(dup.stderr, 'pier: Service account erp-sync exists: name: Service account erp-sync exists\n');
  const bad = await pier('service-accounts', 'create', 'Bad Name');
  t.equal(bad.code, 1);
  t.equal(bad.stderr, 'pier: Validation failed: name: Use only lower case letters, digits, _ or -\n');
  const nobody = await pier('api-tokens', 'create', '--service-account', 'nobody', '--label', 'x');
  t.equal(nobody.code, 1);
  t.equal(nobody.stderr, 'pier: Validation failed: service_account: No local service account named nobody\n');
  t.equal(nobody.stdout, '', 'no token printed');
  const days = await pier(
    'api-tokens',
    'create',
    '--service-account',
    'erp-sync',
    '--label',
    'x',
    '--expires-in-days',
    '400',
  );
  t.equal(days.code, 1);
  t.match(days.stderr, /expires_in_days: Must be at most 365/);
  const missing = await pier('api-tokens', 'create', '--label', 'x');
  t.equal(missing.code, 2, 'wrong usage');
  t.match(missing.stderr, /required option '--service-account <name>' not specified/);
  const asShellSees = await runPierProcess(
    ['api-tokens', 'create', '--label', 'x'],
    { DATABASE_URL: db.url },
    dataDir,
  );
  t.equal(asShellSees.code, 2, 'the process exits 2 on wrong usage');
  t.equal(asShellSees.stderr, missing.stderr, 'and says what the command says in-process');
  const unreachable = await runPierProcess(
    ['migrate'],
    { DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/nothing' },
    dataDir,
  );
  t.equal(unreachable.code, 1);
  t.match(unreachable.stderr, /^pier: .*ECONNREFUSED/);
});

t.test('users: add, list, disable, enable, remove', async (t) => {
  t.equal((await pier('users', 'add', 'alice')).stdout, 'Added user alice.\n');
  const bob = await pier('users', 'add', 'bob', '--issuer', 'https://idp.example.com', '--subject', 'b-42');
  t.equal(bob.code, 0, bob.stderr);
  const half = await pier('users', 'add', 'carol', '--issuer', 'https://idp.example.com');
  t.equal(half.code, 1);
  t.equal(half.stderr, 'pier: Validation failed: Give both the OIDC issuer and subject, or neither\n');
  t.equal((await pier('users', 'add', 'alice')).code, 1, 'a taken name');
  t.equal((await pier('users', 'disable', 'alice')).stdout, 'User alice is disabled.\n');
  const list = await pier('users', 'list');
  t.equal(list.stdout, 'alice\tdisabled\t-\nbob\tenabled\thttps://idp.example.com b-42\n');
  t.equal((await pier('users', 'enable', 'alice')).stdout, 'User alice is enabled.\n');
  t.equal((await pier('users', 'remove', 'bob')).stdout, 'Removed user bob.\n');
  const gone = await pier('users', 'remove', 'bob');
  t.equal(gone.code, 1);
  t.equal(gone.stderr, 'pier: User bob not found\n');
  const rows = await sql<{ name: string; enabled: boolean }>(
    db.url,
    'select name, enabled from app_user order by name',
  );
  t.same(rows, [{ name: 'alice', enabled: true }]);
  const events = await sql<{ n: number }>(
    db.url,
    "select count(*)::int as n from audit_event where kind = 'user'",
  );
  t.equal(events[0]!.n, 5, 'add, add, disable, enable, remove are audited');
});
