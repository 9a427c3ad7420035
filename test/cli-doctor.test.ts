// Covers `pier doctor`: on a healthy install (database, store, key, a running receiver, a
// partner that answers, valid certificates) every check passes and it exits 0; then each check
// fails for its real cause, says what is wrong and how to fix it, and the run exits 1; --json
// says the same for scripts, and no secret is ever printed.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { CheckResult } from '../cli/doctor/checklist.js';
import { runDoctor } from '../cli/doctor/run-doctor.js';
import { selfTestCaptureFiles } from '../actors/as2/self-test/cases.js';
import { capturesDirectory } from '../actors/as2/self-test/run.js';
import {
  freePort,
  organization,
  partner,
  startReceiver,
  storeCertificate,
  syncSigned,
} from './helpers/as2.js';
import { makeFixtures } from './helpers/certificates.js';
import { createTestDatabase, sql } from './helpers/database.js';
import { must } from './helpers/flow.js';
import { runPier, runPierProcess, type Run } from './helpers/pier-shell.js';
import { startTestServer } from './helpers/server.js';

const secretKey = 'pier-test-secret-key';
const server = await startTestServer(t);
const dbUrl = server.database.url;
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pier-doctor-'));
t.teardown(() => rm(dataDir, { recursive: true, force: true }));
const fixtures = makeFixtures(t);

type Env = Record<string, string | undefined>;
const envOf = (extra: Env = {}): Env => ({
  ...process.env,
  DATABASE_URL: dbUrl,
  PIER_DATA_DIR: dataDir,
  PIER_SECRET_KEY: secretKey,
  ...extra,
});

interface Report {
  ok: boolean;
  checks: CheckResult[];
}

async function doctor(
  extra: Env = {},
): Promise<{ run: Run; report: Report; check: (id: string) => CheckResult }> {
  const run = await runPier(['doctor', '--json'], envOf(extra));
  const report = JSON.parse(run.stdout) as Report;
  const check = (id: string) => report.checks.find((c) => c.id === id)!;
  return { run, report, check };
}

const checkIds = [
  'database',
  'clock',
  'payload-store',
  'secret-key',
  'ports',
  'certificates-expiring',
  'certificate-references',
  'partners',
  'as2-self-test',
];

// A healthy install: our certificate with its key, a receiver that runs, a partner whose
// endpoint is that receiver (it answers), a second organization for the reference checks.
fixtures.selfSigned('ours', '/CN=ours.example', 365);
fixtures.selfSigned('spare', '/CN=spare.example', 365);
const ours = await storeCertificate(server, fixtures, 'ours');
const receiverUrl = await startReceiver(server, 'in');
const receiverPort = Number(new URL(receiverUrl).port);
await organization(server, 'acme', 'ACME', ours);
await partner(server, 'globex', 'GLOBEX', receiverUrl, ours, syncSigned, {
  http_basic_user: 'pier',
  http_basic_password: 'basic-secret-never-shown',
});

t.test('a healthy install passes every check and exits 0', async (t) => {
  const { run, report, check } = await doctor();
  t.equal(run.code, 0, run.stdout);
  t.equal(run.stderr, '');
  t.equal(report.ok, true);
  t.same(
    report.checks.map((c) => c.id),
    checkIds,
  );
  for (const c of report.checks) t.equal(c.status, 'ok', `${c.id}: ${c.detail}`);
  t.match(check('database').detail, /all \d+ migrations applied/);
  t.match(check('ports').detail, `as2-receiver/in (127.0.0.1:${receiverPort}) held by pier`);
  t.match(check('partners').detail, '1 partner answered: globex');
  t.match(check('secret-key').detail, /^PIER_SECRET_KEY opens all \d+ stored secrets$/);
  t.match(check('payload-store').detail, /written, read back and deleted; [\d.]+ GiB free/);
  t.match(check('as2-self-test').detail, /^17 captured messages/);

  const text = await runPier(['doctor'], envOf());
  t.equal(text.code, 0);
  t.match(text.stdout, /^✔ Database reachable and migrated: /);
  t.equal(text.stdout.split('\n').filter((l) => l.startsWith('✔ ')).length, checkIds.length);
  t.match(text.stdout, /\nAll checks passed\.\n$/);
  t.notMatch(text.stdout + run.stdout, /basic-secret-never-shown|pier-test-secret-key/, 'no secret printed');
});

t.test('a port held by another program fails; a stopped receiver’s free port passes', async (t) => {
  t.equal((await server.call('POST', '/api/v1/services/as2-receiver/in/stop', { body: {} })).status, 200);
  const free = await doctor();
  t.equal(free.check('ports').status, 'ok');
  t.match(free.check('ports').detail, `as2-receiver/in (127.0.0.1:${receiverPort}) free`);

  const squatter = http.createServer((_req, res) => res.writeHead(200, { Server: 'nginx/1.25' }).end('hi'));
  await new Promise<void>((resolve) => squatter.listen(receiverPort, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => squatter.close(() => resolve())));
  const taken = await doctor();
  t.equal(taken.run.code, 1);
  t.equal(taken.report.ok, false);
  t.match(taken.check('ports'), {
    status: 'failed',
    detail: '1 of 1 ports cannot be used by pier',
    problems: [
      `as2-receiver/in (127.0.0.1:${receiverPort}): port ${receiverPort} is used by another program (it answers as nginx/1.25)`,
    ],
    fix: /ss -ltnp/,
  });
  await new Promise<void>((resolve) => squatter.close(() => resolve()));
  t.equal((await server.call('POST', '/api/v1/services/as2-receiver/in/start', { body: {} })).status, 200);
  t.equal((await doctor()).check('ports').status, 'ok');
});

t.test('a partner whose endpoint refuses connections fails, named with the failing step', async (t) => {
  const closed = await freePort();
  const id = await partner(server, 'initech', 'INITECH', `http://127.0.0.1:${closed}/as2`, ours, syncSigned);
  const { run, check } = await doctor();
  t.equal(run.code, 1);
  t.match(check('partners'), {
    status: 'failed',
    detail: '1 of 2 partners cannot be reached',
    problems: [new RegExp(`^initech \\(http://127.0.0.1:${closed}/as2\\): connect: .*ECONNREFUSED|refused`)],
    fix: /connection check/,
  });
  t.equal((await server.call('DELETE', `/api/v1/partners/${id}`)).status, 204);
});

t.test('a certificate in use that expires within 30 days fails, naming where it is used', async (t) => {
  const stamp = (d: Date) => `${d.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
  const day = 24 * 3600 * 1000;
  fixtures.dated(
    'soon',
    '/CN=soon.example',
    stamp(new Date(Date.now() - 300 * day)),
    stamp(new Date(Date.now() + 10.5 * day)),
  );
  const soon = await storeCertificate(server, fixtures, 'soon', false);
  const id = await partner(server, 'hooli', 'HOOLI', receiverUrl, soon, syncSigned);
  const { run, check } = await doctor();
  t.equal(run.code, 1);
  t.match(check('certificates-expiring'), {
    status: 'failed',
    detail: '1 certificate in use expires within 30 days',
    problems: [
      new RegExp(
        `^certificate ${soon} \\(soon\\) expires on \\d{4}-\\d\\d-\\d\\d \\(in 10 days\\); used by the AS2 profile of partner hooli \\(partner_certificate_id, signature_certificate_ids\\)$`,
      ),
    ],
    fix: /Import the renewed certificate/,
  });
  t.equal((await server.call('DELETE', `/api/v1/partners/${id}`)).status, 204);
  const after = await doctor();
  t.match(after.check('certificates-expiring'), {
    status: 'ok',
    detail: 'none expires within 30 days (1 unused certificate expiring too, not counted)',
  });
});

t.test('a profile naming a key-less certificate and an instance naming a missing one fail', async (t) => {
  const spare = await storeCertificate(server, fixtures, 'spare');
  await organization(server, 'umbrella', 'UMBRELLA', spare);
  // A restore that lost the private key (the API itself refuses to remove it while in use).
  await sql(dbUrl, 'update certificate set private_key = null where id = $1', [spare]);
  // A disabled receiver configured for HTTPS with a certificate that the store no longer holds.
  fixtures.selfSigned('gone', '/CN=gone.example', 365);
  const gone = await storeCertificate(server, fixtures, 'gone');
  await must(server, '/plugins/configs?type=as2-receiver', {
    name: 'tls-in',
    host: '127.0.0.1',
    port: await freePort(),
    path: '/as2',
    tls_certificate_id: gone,
    enabled: false,
  });
  await sql(dbUrl, 'delete from certificate where id = $1', [gone]);

  const { run, check } = await doctor();
  t.equal(run.code, 1);
  t.match(check('certificate-references'), {
    status: 'failed',
    detail: /^3 of \d+ references cannot be used$/,
    problems: [
      `the AS2 profile of organization umbrella names certificate ${spare} in decryption_certificate_ids, which has no private key`,
      `the AS2 profile of organization umbrella names certificate ${spare} in signing_certificate_id, which has no private key`,
      `the plugin configuration as2-receiver/tls-in names certificate ${gone} in tls_certificate_id, which is not stored`,
    ],
    fix: /Import the certificate with its private key/,
  });
  await server.call('DELETE', '/api/v1/plugins/configs/as2-receiver/tls-in');
  await sql(
    dbUrl,
    'delete from as2_local_profile where organization_id = (select id from organization where name = $1)',
    ['umbrella'],
  );
  await sql(dbUrl, 'delete from as2_profile_certificate where certificate_id = $1', [spare]);
  t.equal((await doctor()).check('certificate-references').status, 'ok');
});

t.test('another secret key, or none at all, fails and skips the partners; no key file is made', async (t) => {
  const wrong = await doctor({ PIER_SECRET_KEY: 'a-different-key' });
  t.equal(wrong.run.code, 1);
  t.match(wrong.check('secret-key'), {
    status: 'failed',
    detail: /^PIER_SECRET_KEY opens 0 of \d+ stored secrets$/,
    fix: /key these secrets were sealed with/,
  });
  t.ok(wrong.check('secret-key').problems.includes('cannot open the secret key check of the settings'));
  t.ok(
    wrong.check('secret-key').problems.includes(`cannot open the private key of certificate ${ours} (ours)`),
  );
  t.ok(wrong.check('secret-key').problems.includes('cannot open the HTTP password of partner globex'));
  t.match(wrong.check('partners'), {
    status: 'skipped',
    detail: 'not run: the stored secrets cannot be opened',
  });
  t.notMatch(wrong.run.stdout, /a-different-key|basic-secret-never-shown/);

  const none = await doctor({ PIER_SECRET_KEY: undefined });
  const keyFile = path.join(dataDir, 'secret.key');
  t.match(none.check('secret-key'), {
    status: 'failed',
    detail: new RegExp(
      `^PIER_SECRET_KEY is not set and ${keyFile} does not exist, but the database holds \\d+ sealed secrets$`,
    ),
    fix: /restore .*secret\.key from a backup/,
  });
  await t.rejects(
    import('node:fs/promises').then((fs) => fs.access(keyFile)),
    { code: 'ENOENT' },
    'no key made',
  );
  // The key file with the servers' key works as PIER_SECRET_KEY does.
  await writeFile(keyFile, `${secretKey}\n`, { mode: 0o600 });
  const file = await doctor({ PIER_SECRET_KEY: undefined });
  t.match(file.check('secret-key'), {
    status: 'ok',
    detail: new RegExp(`^${keyFile} opens all \\d+ stored secrets$`),
  });
  await rm(keyFile);
});

t.test('a payload directory that cannot be made, and one on a nearly full file system, fail', async (t) => {
  const [row] = await sql<{ storage_local_directory: string }>(
    dbUrl,
    'select storage_local_directory from settings',
  );
  const saved = row!.storage_local_directory;
  t.teardown(() => sql(dbUrl, 'update settings set storage_local_directory = $1', [saved]));
  const blocker = path.join(dataDir, 'a-file');
  await writeFile(blocker, 'not a directory');
  await sql(dbUrl, 'update settings set storage_local_directory = $1', [path.join(blocker, 'payloads')]);
  const unwritable = await doctor();
  t.equal(unwritable.run.code, 1);
  t.match(unwritable.check('payload-store'), {
    status: 'failed',
    detail: new RegExp(`^local directory ${blocker}/payloads: directory: `),
    fix: /storage_local_directory=/,
  });

  // A real small file system (tmpfs, which needs root as the test machine runs) filled to 98 %.
  const mount = path.join(dataDir, 'small-fs');
  await mkdir(mount);
  await run('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mount]);
  t.teardown(() => run('umount', [mount]));
  await writeFile(path.join(mount, 'filler'), Buffer.alloc(4 * 1024 * 1024 - 64 * 1024));
  await sql(dbUrl, 'update settings set storage_local_directory = $1', [mount]);
  const full = await doctor();
  t.match(full.check('payload-store'), {
    status: 'failed',
    detail: new RegExp(
      `^local directory ${mount}: write: ${mount} has [\\d.]+ MiB free of 4\\.0 MiB .* below the [\\d.]+ MiB pier wants free$`,
    ),
  });
});

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')}: ${stderr}`)),
    );
  });
}

t.test('a clock a minute off the database fails', async (t) => {
  const results = await runDoctor({ env: envOf(), now: () => new Date(Date.now() + 60_000) });
  t.match(
    results.find((c) => c.id === 'clock'),
    {
      status: 'failed',
      detail:
        /^this machine's clock is (59|60)\.\d s ahead of the database's \(±[\d.]+ s\), more than the 5 s allowed$/,
      fix: /NTP/,
    },
  );
});

t.test('a damaged AS2 self-test capture fails the self-test', async (t) => {
  const copy = await mkdtemp(path.join(os.tmpdir(), 'pier-doctor-captures-'));
  t.teardown(() => rm(copy, { recursive: true, force: true }));
  // The files a release ships for the self-test (scripts/build.ts copies the same list).
  for (const file of selfTestCaptureFiles) {
    await mkdir(path.dirname(path.join(copy, file)), { recursive: true });
    await copyFile(path.join(capturesDirectory, file), path.join(copy, file));
  }
  await writeFile(path.join(copy, 'as2-line-endings/certificates/client.crt'), 'not a certificate');
  const results = await runDoctor({ env: envOf(), capturesDirectory: copy });
  t.match(
    results.find((c) => c.id === 'as2-self-test'),
    {
      status: 'failed',
      detail: '16 of 17 captured messages are not read as their senders meant',
      fix: /npm ci/,
    },
  );
});

t.test(
  'a database that is not migrated, or migrated by a newer pier, fails and skips the rest',
  async (t) => {
    const fresh = await createTestDatabase();
    t.teardown(() => fresh.drop());
    const bare = await doctor({ DATABASE_URL: fresh.url });
    t.equal(bare.run.code, 1);
    t.match(bare.check('database'), {
      status: 'failed',
      detail: /has never been migrated \(\d+ migrations to apply\)$/,
      fix: '`pier migrate` with the same DATABASE_URL (the server also migrates when it starts)',
    });
    t.equal(bare.check('clock').status, 'ok', 'the clock needs only a reachable database');
    t.same(
      bare.report.checks.filter((c) => c.status === 'skipped').map((c) => c.id),
      ['payload-store', 'secret-key', 'ports', 'certificates-expiring', 'certificate-references', 'partners'],
    );
    const tables = await sql(fresh.url, "select 1 from pg_tables where schemaname = 'public'");
    t.same(tables, [], 'the doctor migrated nothing');

    await runPier(['migrate'], envOf({ DATABASE_URL: fresh.url }));
    await sql(fresh.url, "delete from mikro_orm_migrations where name = 'Migration0100HistoryIdAfterXid'");
    t.match(
      (await doctor({ DATABASE_URL: fresh.url })).check('database').detail,
      /lacks 1 of \d+ migrations \(first: Migration0100HistoryIdAfterXid\)$/,
    );
    await sql(
      fresh.url,
      "insert into mikro_orm_migrations (name) values ('Migration0100HistoryIdAfterXid'), ('Migration9999FromTheFuture')",
    );
    t.match((await doctor({ DATABASE_URL: fresh.url })).check('database'), {
      status: 'failed',
      detail: /was migrated by a newer pier: this installation does not know Migration9999FromTheFuture$/,
    });
  },
);

t.test('an unreachable database, as a shell runs it: exit 1 and the fix', async (t) => {
  const closed = await freePort();
  const shell = await runPierProcess(
    ['doctor'],
    { ...envOf(), DATABASE_URL: `postgresql://postgres:pw@127.0.0.1:${closed}/pier` },
    dataDir,
  );
  t.equal(shell.code, 1);
  t.equal(shell.stderr, '');
  const lines = shell.stdout.split('\n');
  t.equal(
    lines[0],
    `✘ Database reachable and migrated: Cannot use the database postgresql://postgres:***@127.0.0.1:${closed}/pier (DATABASE_URL): connect ECONNREFUSED 127.0.0.1:${closed}`,
  );
  t.match(lines[1], /^ {4}fix: Start PostgreSQL or correct DATABASE_URL/);
  t.match(shell.stdout, /^- Clock agrees with the database: not run: the database cannot be reached$/m);
  t.match(shell.stdout, /^✔ AS2 library self-test: /m);
  t.match(shell.stdout, /\n1 check failed\.\n$/);
  t.notMatch(shell.stdout, /:pw@/, 'the password of the URL is not printed');
});

t.test('a database DATABASE_URL names that does not exist is reported missing, and not made', async (t) => {
  const missing = `pier_doctor_missing_${process.pid}`;
  const url = new URL(dbUrl);
  url.pathname = `/${missing}`;
  const shell = await runPierProcess(['doctor'], { ...envOf(), DATABASE_URL: url.toString() }, dataDir);
  t.equal(shell.code, 1);
  t.match(
    shell.stdout.split('\n')[0],
    new RegExp(
      `^✘ Database reachable and migrated: Cannot use the database .*/${missing} \\(DATABASE_URL\\): database "${missing}" does not exist$`,
    ),
  );
  const made = await sql<{ n: number }>(
    dbUrl,
    'select count(*)::int as n from pg_database where datname = $1',
    [missing],
  );
  t.equal(made[0]!.n, 0, 'doctor made no database');
});
