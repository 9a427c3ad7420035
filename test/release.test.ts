// Covers the release an operator installs: `npm pack` gives a tarball of the compiled
// build without sources, tests or tsx; `npm install -g` of it into an empty prefix prints no
// engine warning on this Node; the installed `pier` answers --help and database commands from any
// directory, and `pier serve` from there (PIER_DATA_DIR elsewhere) serves /health, the web UI's
// assets and the OpenAPI document, runs actor threads (a file moved from a poller to a writer),
// passes `pier doctor` (its AS2 self-test reading the shipped captures), takes an AS2 message signed
// and encrypted by `openssl cms` and writes its document, and drains on SIGTERM (503 on /ready while
// an upload in flight finishes and is stored, exit code 0); without DATABASE_URL it runs its embedded PostgreSQL
// under PIER_DATA_DIR, as on a machine with only Node.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import t, { type Test } from 'tap';
import { createTestDatabase } from './helpers/database.js';
import { form, tempDir } from './helpers/flow.js';
import {
  bobFromAliceOn,
  fileFlowOn,
  mustOn,
  runningIn,
  spawnPier,
  type PierProcess,
} from './helpers/process.js';
import { multipart } from './helpers/upload.js';
import { checkoutRoot } from './helpers/checkout.js';
import { waitFor } from './helpers/wait.js';

// npm pack packs the checkout, not the compiled tree the tests run from.
const root = checkoutRoot;
const dir = await tempDir(t, 'pier-release-');
const prefix = path.join(dir, 'prefix');
const elsewhere = path.join(dir, 'elsewhere');
await mkdir(elsewhere);
// The node running the tests is the one the installed `pier` (#!/usr/bin/env node) finds.
const PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`;
// Settings npm passed to this test (npm_config_*) would steer the nested npm; it gets none.
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}
function run(program: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      program,
      args,
      { cwd, env: { ...cleanEnv, PATH, ...env }, maxBuffer: 64 * 1024 * 1024, timeout: 600_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const db = await createTestDatabase();
t.teardown(() => db.drop());

let tarball = '';
t.test(
  'npm pack: the compiled build, bin/pier.js and deploy/, no sources, tests or build state',
  async (t) => {
    // prepack builds dist/ first (npm run build), so a pack never ships an old build.
    const packed = await run('npm', ['pack', '--json', '--pack-destination', dir], root);
    t.equal(packed.code, 0, packed.stderr);
    const json = packed.stdout.slice(packed.stdout.search(/^\[/m));
    const [info] = JSON.parse(json) as { filename: string; files: { path: string }[] }[];
    const files = info!.files.map((f) => f.path);
    for (const needed of [
      'bin/pier.js',
      'dist/cli/main.js',
      'dist/actors/file-writer/worker.js',
      'dist/actors/as2-receiver/open-worker.js',
      'dist/actors/as2-receiver/open-worker-entry.cjs',
      'dist/storage/migrations/index.js',
      'dist/api/ui/assets/ui.css',
      'deploy/pier.service',
      'package.json',
      'README.md',
    ])
      t.ok(files.includes(needed), `${needed} is in the tarball`);
    t.same(
      files.filter((f) => /\.ts$|^test\/|^bin\/pier-sources|tsbuildinfo|\.built$/.test(f)),
      [],
      'no TypeScript source, test, tsx entry or build state',
    );
    t.same(
      files.filter(
        (f) => /\.key(\.pem)?$/.test(f) && !f.startsWith('dist/actors/as2/self-test/test-captures/'),
      ),
      [],
      "private keys only among the self-test's public test captures",
    );
    t.ok(
      files.includes('dist/actors/as2/self-test/test-captures/README.md'),
      'whose README says they are public test keys',
    );
    tarball = path.join(dir, info!.filename);
  },
);

t.test('npm install -g of the tarball: no engine warning, no tsx or TypeScript installed', async (t) => {
  const installed = await run(
    'npm',
    ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball],
    elsewhere,
  );
  t.equal(installed.code, 0, installed.stderr);
  t.notMatch(installed.stderr, /EBADENGINE/, 'no dependency asks for another Node');
  const modules = path.join(prefix, 'lib/node_modules/pier/node_modules');
  t.ok(existsSync(path.join(modules, 'fastify')), 'the runtime dependencies are installed');
  t.notOk(existsSync(path.join(modules, 'tsx')), 'tsx is not installed');
  t.notOk(existsSync(path.join(modules, 'typescript')), 'TypeScript is not installed');
});

t.test(
  'the installed pier: --help anywhere, serve from another directory, a file through two actors',
  async (t) => {
    const pier = path.join(prefix, 'bin/pier');
    const help = await run(pier, ['--help'], elsewhere);
    t.equal(help.code, 0, help.stderr);
    t.match(help.stdout, /^Usage: pier /);
    t.equal(help.stderr, '', 'nothing on stderr (no build hint outside a checkout)');

    const dataDir = path.join(dir, 'data');
    const server = await spawnPier(t, {
      databaseUrl: db.url,
      dataDir,
      cwd: elsewhere,
      command: [pier],
      env: { PATH },
    });
    const health = await fetch(`${server.url}/health`);
    t.equal(health.status, 200);
    t.match(await health.json(), { status: 'healthy', database: 'up' });
    const css = await fetch(`${server.url}/ui/assets/app/ui.css`);
    t.equal(css.status, 200, 'the web UI assets ship in dist/');
    t.equal(await css.text(), await readFile(path.join(root, 'api/ui/assets/ui.css'), 'utf8'));
    const openapi = await fetch(`${server.url}/openapi.yaml`);
    t.equal(openapi.status, 200);
    t.match(await openapi.text(), /^openapi: 3/);

    // A poller and a writer, each a worker thread running dist/'s JavaScript.
    const work = path.join(dir, 'flow');
    const inbox = path.join(work, 'in', 'globex');
    const outbox = path.join(work, 'out');
    await mkdir(inbox, { recursive: true });
    await fileFlowOn(server, work, outbox);
    await runningIn(server, 'out');
    await writeFile(path.join(inbox, 'order-1.edi'), 'UNB+UNOC:3+ACME+GLOBEX\n');
    await mustOn(server, '/services/file-poller/in/start');
    const written = await waitFor(
      async () => {
        const names = await readdir(path.join(outbox, 'acme')).catch(() => []);
        return names.filter((n) => !n.startsWith('.')).length > 0 && names;
      },
      'the file written by the installed pier',
      60_000,
      100,
    );
    t.same(
      written.filter((n) => !n.startsWith('.')),
      ['order-1.edi'],
    );
    t.equal(await readFile(path.join(outbox, 'acme', 'order-1.edi'), 'utf8'), 'UNB+UNOC:3+ACME+GLOBEX\n');

    // What an operator runs first: every check passes on the installed build, the AS2
    // self-test replaying its captured messages from the release's own files.
    const doctor = await run(pier, ['doctor'], elsewhere, {
      DATABASE_URL: db.url,
      PIER_DATA_DIR: dataDir,
      PIER_SECRET_KEY: 'cluster-test-key',
    });
    t.equal(doctor.code, 0, `pier doctor exits 0: ${doctor.stdout}${doctor.stderr}`);
    t.match(
      doctor.stdout,
      /^✔ AS2 library self-test: 17 captured messages from OpenAS2, Mendelson AS2 and pyas2lib read as their senders meant$/m,
      'the self-test reads the shipped captures',
    );

    // An AS2 message from an independent client (openssl cms), signed and encrypted.
    await as2FromOpenssl(t, server, work);

    // A database command of the installed CLI, beside the running server.
    const users = await run(pier, ['users', 'list'], elsewhere, {
      DATABASE_URL: db.url,
      PIER_DATA_DIR: dataDir,
    });
    t.equal(users.code, 0, users.stderr);
    t.equal(users.stdout, 'No users.\n');

    // SIGTERM drains: with an upload in flight, the port stays open and answers 503 while the
    // upload finishes; a silent connection does not hold the stop.
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', (c) => resolve(c)));
    const held = net.connect(Number(new URL(server.url).port), '127.0.0.1');
    held.on('error', () => {});
    const upload = form(
      { from: 'acme', to: 'globex', target: 'out' },
      { name: 'late.edi', content: 'x'.repeat(65_536) },
    );
    let request: http.ClientRequest | undefined;
    const uploaded = new Promise<number>((resolve, reject) => {
      request = http.request(
        `${server.url}/api/v1/messages`,
        { method: 'POST', headers: { ...upload.headers, 'content-length': String(upload.payload.length) } },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        },
      );
      request.on('error', reject);
    });
    request!.write(upload.payload.subarray(0, 1_000));
    await new Promise((resolve) => setTimeout(resolve, 300));
    server.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ready = await fetch(`${server.url}/ready`);
    t.equal(ready.status, 503, '/ready answers 503 while draining');
    t.match(await ready.json(), { status: 'draining' });
    request!.end(upload.payload.subarray(1_000));
    t.equal(await uploaded, 201, 'the upload in flight is stored');
    t.equal(await exited, 0, 'SIGTERM stops it with exit code 0, a silent connection notwithstanding');
    held.destroy();
    t.ok(
      server.logLines.some((l) => l.msg === 'pier stopped'),
      'it logged its stop',
    );
  },
);

/**
 * Sets up organization bob (a key pair pier makes) and partner alice (openssl's certificate)
 * on the installed pier with an AS2 receiver and a file-writer, then posts a message that
 * `openssl cms` signed as alice and encrypted to bob's certificate; the document is written.
 */
async function as2FromOpenssl(t: Test, server: PierProcess, work: string): Promise<void> {
  const openssl = (args: string) => execFileSync('openssl', args.split(' '), { cwd: work, stdio: 'pipe' });
  openssl('req -x509 -newkey rsa:2048 -nodes -keyout alice.key -out alice.crt -days 30 -subj /CN=alice');
  const made = await server.call('POST', '/certificates/generate', {
    name: 'bob',
    output: 'self-signed',
    key: { algorithm: 'rsa', bits: 2048 },
    subject: { common_name: 'bob' },
  });
  t.equal(made.status, 201, JSON.stringify(made.body));
  const bobCert = made.body.data.id as number;
  await writeFile(
    path.join(work, 'bob.crt'),
    await (await fetch(`${server.url}/api/v1/certificates/${bobCert}/download`)).text(),
  );
  const { payload, contentType } = await multipart({
    certificate: { file: await readFile(path.join(work, 'alice.crt')), name: 'alice.crt' },
    description: 'alice',
  });
  const uploaded = await fetch(`${server.url}/api/v1/certificates`, {
    method: 'POST',
    headers: { 'content-type': contentType, 'x-requested-with': 'XMLHttpRequest' },
    body: new Uint8Array(payload),
  });
  const aliceCert = ((await uploaded.json()) as { data: { id: number } }).data.id;
  const as2Port = await freePort();
  await mustOn(server, '/plugins/configs?type=as2-receiver', {
    name: 'as2in',
    host: '127.0.0.1',
    port: as2Port,
    path: '/as2',
  });
  await mustOn(server, '/plugins/configs?type=file-writer', {
    name: 'as2out',
    directory: path.join(work, 'as2out'),
    path_pattern: '{filename}',
  });
  await bobFromAliceOn(server, bobCert, aliceCert, { compression: false });
  await mustOn(server, '/routes', {
    source_plugin: 'as2in',
    from: 'alice',
    to: 'bob',
    target_plugin: 'as2out',
  });
  await runningIn(server, 'as2in');
  await writeFile(
    path.join(work, 'entity.mime'),
    'Content-Type: application/edi-x12\r\nContent-Disposition: attachment; filename="po-1.x12"\r\n\r\nISA*release~\r\n',
  );
  openssl('cms -sign -binary -in entity.mime -signer alice.crt -inkey alice.key -md sha256 -out signed.eml');
  openssl('cms -encrypt -binary -in signed.eml -aes256 -out encrypted.eml -recip bob.crt');
  const encrypted = await readFile(path.join(work, 'encrypted.eml'), 'latin1');
  const split = encrypted.indexOf('\n\n');
  const body = Buffer.from(encrypted.slice(split + 2), 'base64');
  const answer = await fetch(`http://127.0.0.1:${as2Port}/as2`, {
    method: 'POST',
    headers: {
      'AS2-Version': '1.2',
      'AS2-From': 'ALICE',
      'AS2-To': 'BOB',
      'Message-ID': '<release-1@alice.example>',
      'Content-Type': 'application/pkcs7-mime; smime-type=enveloped-data; name=smime.p7m',
      'Disposition-Notification-To': 'edi@alice.example',
      'Disposition-Notification-Options':
        'signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256',
    },
    body: new Uint8Array(body),
  });
  t.equal(answer.status, 200, 'the AS2 message is answered');
  t.match(await answer.text(), /processed/, 'with a receipt that says processed');
  const document = await waitFor(
    () => readFile(path.join(work, 'as2out', 'po-1.x12'), 'latin1').catch(() => undefined),
    'the AS2 document written by the installed pier',
    60_000,
    100,
  );
  t.equal(document, 'ISA*release~\r\n', 'the document is written as sent');
}

/** Command lines of the running postgres processes that name `dataDir` (Linux /proc). */
function postgresOf(dataDir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmdline.includes('postgres') && cmdline.includes(dataDir)) found.push(`${pid}: ${cmdline}`);
    } catch {
      // the process ended meanwhile
    }
  }
  return found;
}

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

t.test(
  'the installed pier without DATABASE_URL: its embedded PostgreSQL in the data directory',
  async (t) => {
    // Under root the embedded PostgreSQL runs as the postgres user, who must reach the binaries.
    await chmod(dir, 0o755);
    const dataDir = path.join(dir, 'embedded-data');
    const server = await spawnPier(t, {
      databaseUrl: '',
      dataDir,
      cwd: elsewhere,
      command: [path.join(prefix, 'bin/pier')],
      env: { PATH, PIER_EMBEDDED_PG_PORT: String(await freePort()) },
    });
    const health = await fetch(`${server.url}/health`);
    t.match(await health.json(), { status: 'healthy', database: 'up' });
    t.ok(existsSync(path.join(dataDir, 'postgres', 'PG_VERSION')), 'the data directory holds the database');
    t.not(postgresOf(dataDir).length, 0, 'its PostgreSQL runs from the data directory');
    await server.kill('SIGTERM');
    t.equal(server.child.exitCode, 0, 'SIGTERM stops it with exit code 0');
    await waitFor(() => postgresOf(dataDir).length === 0, 'its PostgreSQL stopped', 30_000, 200);
    t.pass('no PostgreSQL of that data directory is left');
  },
);
