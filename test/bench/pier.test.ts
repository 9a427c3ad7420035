// Covers `pier bench as2` against a real pier (its AS2 receiver over loopback, also over https with the server's certificate trusted by --tls-ca, refused as `tls` without it, unchecked with --no-tls-verify): from flags, with synchronous signed receipts at two concurrencies over kept-alive and new connections, every receipt right, the figures (msg/s, percentiles, CPU per message in RSA-2048 operations with --server-pid), the JSON document and the HTML report; a message set kept on disk with --set and fired again (fresh Message-IDs, not duplicates); `--partner NAME` taking endpoint, names, keys and shape from the install's records; asynchronous receipts coming back to the command's own listener; and usage errors that name what is missing.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import {
  agreement,
  freePort,
  pierToItself,
  startReceiver,
  storeCertificate,
  syncSigned,
} from '../helpers/as2.js';
import { tempDir } from '../helpers/flow.js';
import { runPier } from '../helpers/pier-shell.js';
import { sql } from '../helpers/database.js';
import { startTestServer } from '../helpers/server.js';
import { serverCertificate } from '../helpers/tls.js';

const server = await startTestServer(t);
const { f, cert, url } = await pierToItself(t, server);
await agreement(server, 'x', url, cert, syncSigned);
const env = {
  DATABASE_URL: server.db.url,
  PIER_DATA_DIR: server.dataDir,
  PIER_SECRET_KEY: 'pier-test-secret-key',
};
const dir = await tempDir(t, 'pier-bench-test-');
const keys = [
  '--key',
  path.join(f.dir, 'pier.key'),
  '--cert',
  path.join(f.dir, 'pier.crt'),
  '--partner-cert',
  path.join(f.dir, 'pier.crt'),
];
const flags = ['--url', url, '--from', 'Sx', '--to', 'Rx', ...keys];
/** A short run: `messages` messages, two at a time, none to warm up. */
const short = (messages: number) => ['--messages', String(messages), '--concurrency', '2', '--warm-up', '0'];

/** The run's JSON document (stdout of --json). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- asserted field by field
const json = (stdout: string): any => JSON.parse(stdout);

t.test('from flags: every receipt right, figures, JSON and HTML report', async (t) => {
  const report = path.join(dir, 'report.html');
  const run = await runPier(
    [
      'bench',
      'as2',
      ...flags,
      '--messages',
      '12',
      '--concurrency',
      '1,3',
      '--connections',
      'keepalive,new',
      '--warm-up',
      '4',
      '--server-pid',
      String(process.pid),
      '--json',
      '--report',
      report,
    ],
    env,
  );
  t.equal(run.code, 0, run.stderr);
  const r = json(run.stdout);
  t.equal(r.passed, true);
  t.same(
    r.cases.map((c: { concurrency: number; connections: string }) => [c.concurrency, c.connections]),
    [
      [1, 'keepalive'],
      [1, 'new'],
      [3, 'keepalive'],
      [3, 'new'],
    ],
  );
  for (const c of r.cases) {
    t.equal(c.sent, 12);
    t.equal(c.ok, 12);
    t.same(c.failures, {});
    t.ok(c.msg_per_s > 0);
    t.ok(
      c.latency_ms.p50 > 0 &&
        c.latency_ms.p50 <= c.latency_ms.p90 &&
        c.latency_ms.p90 <= c.latency_ms.p99 &&
        c.latency_ms.p99 <= c.latency_ms.max,
    );
    t.ok(
      c.cpu.server_ms_per_msg > 0 && c.cpu.rsa2048_ops_per_msg > 0,
      'CPU per message in ms and RSA-2048 operations',
    );
    t.equal(
      c.per_second.reduce((a: number, b: number) => a + b, 0),
      12,
    );
  }
  t.ok(r.rsa2048_ops_per_s.before > 0 && r.rsa2048_ops_per_s.after > 0);
  t.same(r.warm_up, [{ endpoint: 'a', sent: 4, failures: {} }]);
  t.same(r.set.shape, {
    as2_from: 'Sx',
    as2_to: 'Rx',
    signing_algorithm: 'sha256',
    encryption_algorithm: 'aes256-cbc',
    compression: true,
    receipts: 'sync-signed',
  });
  const html = readFileSync(report, 'utf8');
  t.match(html, /<svg[^>]*aria-label="receipts per second"/);
  t.match(html, /<svg[^>]*aria-label="latency distribution"/);
  t.notMatch(html, /<script|<link|\bsrc=|\bhref=/i, 'nothing is fetched from elsewhere');
  t.match(html, /Passed: every receipt was right/);
  const [count] = await sql<{ n: number }>(
    server.db.url,
    "select count(*)::int as n from message where direction = 'inbound'",
  );
  t.equal(count!.n, 52, 'each message one of its own in pier (warm-up 4 + 4 cases × 12)');
});

t.test('a set kept on disk is fired again under new Message-IDs', async (t) => {
  const set = path.join(dir, 'set');
  const first = await runPier(['bench', 'as2', ...flags, '--set', set, ...short(5)], env);
  t.equal(first.code, 0, first.stderr);
  t.match(first.stdout, /PASSED: every receipt was right/);
  t.match(
    first.stdout,
    /endpoint\s+conn\s+conc\s+round\s+sent\s+ok\s+msg\/s\s+p50 ms\s+p90 ms\s+p99 ms\s+max ms/,
  );
  t.equal(readdirSync(path.join(set, 'bodies')).length, 5);
  const manifest = JSON.parse(readFileSync(path.join(set, 'manifest.json'), 'utf8'));
  t.equal(
    new Set(manifest.messages.map((m: { message_id: string }) => m.message_id)).size,
    5,
    'unique Message-IDs',
  );
  const again = await runPier(['bench', 'as2', ...flags, '--set', set, ...short(5), '--json'], env);
  t.equal(again.code, 0, again.stderr);
  t.match(again.stderr, /firing the 5 messages of/);
  t.equal(json(again.stdout).cases[0].ok, 5, 'not refused as duplicates');
});

t.test('--partner takes everything from the install’s records', async (t) => {
  const run = await runPier(
    ['bench', 'as2', '--partner', 'rx', '--organization', 'sx', ...short(4), '--json'],
    env,
  );
  t.equal(run.code, 0, run.stderr);
  const r = json(run.stdout);
  t.equal(r.endpoints[0].url, url);
  t.same(r.set.shape, {
    as2_from: 'Sx',
    as2_to: 'Rx',
    signing_algorithm: 'sha256',
    encryption_algorithm: 'aes256-cbc',
    compression: false,
    receipts: 'sync-signed',
  });
  t.equal(r.cases[0].ok, 4);
  t.equal(r.cases[0].delivered, null, 'an endpoint elsewhere: its deliveries are not counted');
  const several = await runPier(['bench', 'as2', '--partner', 'rx', '--messages', '1'], env);
  t.equal(several.code, 1);
  t.match(
    several.stderr,
    /Several organizations have an AS2 profile \(.*sx.*\): name one with --organization/,
  );
  const unknown = await runPier(
    ['bench', 'as2', '--partner', 'nobody', '--organization', 'sx', '--messages', '1'],
    env,
  );
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /partner nobody has no AS2 profile/);
});

t.test('asynchronous receipts come back to the command’s listener', async (t) => {
  const port = await freePort();
  const run = await runPier(
    [
      'bench',
      'as2',
      ...flags,
      '--receipts',
      'async',
      '--receipt-url',
      `http://127.0.0.1:${port}/receipts`,
      ...short(4),
      '--timeout',
      '30',
      '--json',
    ],
    env,
  );
  t.equal(run.code, 0, run.stderr);
  const r = json(run.stdout);
  t.equal(r.set.shape.receipts, 'async');
  t.equal(r.cases[0].ok, 4);
});

t.test('https: trusted with --tls-ca, refused as `tls` without it', async (t) => {
  serverCertificate(f, 'tls');
  const tlsCert = await storeCertificate(server, f, 'tls');
  const secure = await startReceiver(server, 'bench-secure', { tls_certificate_id: tlsCert });
  const over = [
    '--url',
    secure,
    '--from',
    'Sx',
    '--to',
    'Rx',
    ...keys,
    '--concurrency',
    '2',
    '--warm-up',
    '0',
  ];
  const trusted = await runPier(
    ['bench', 'as2', ...over, '--messages', '4', '--tls-ca', path.join(f.dir, 'tls.crt'), '--json'],
    env,
  );
  t.equal(trusted.code, 0, trusted.stderr);
  const r = json(trusted.stdout);
  t.equal(r.endpoints[0].url, secure);
  t.equal(r.cases[0].ok, 4, 'every receipt over https right');
  const refused = await runPier(['bench', 'as2', ...over, '--messages', '2', '--json'], env);
  t.equal(refused.code, 1, 'a server this side does not trust fails the run');
  t.same(json(refused.stdout).cases[0].failures, { tls: 2 }, 'counted as tls, not as a lost connection');
  const unchecked = await runPier(
    ['bench', 'as2', ...over, '--messages', '2', '--no-tls-verify', '--json'],
    env,
  );
  t.equal(unchecked.code, 0, unchecked.stderr);
  t.equal(json(unchecked.stdout).cases[0].ok, 2);
});

t.test('usage errors', async (t) => {
  const missing = await runPier(['bench', 'as2', '--url', url, '--from', 'Sx'], env);
  t.equal(missing.code, 2);
  t.match(missing.stderr, /--to, --key, --cert, --partner-cert missing/);
  const bad = await runPier(['bench', 'as2', ...flags, '--concurrency', '0,4'], env);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /comma-separated list of whole numbers above 0/);
  const mode = await runPier(['bench', 'as2', ...flags, '--receipts', 'sometimes'], env);
  t.equal(mode.code, 2);
  t.match(mode.stderr, /--receipts is one of sync-signed, sync-unsigned, async, none/);
  const noUrl = await runPier(['bench', 'as2', ...flags, '--receipts', 'async'], env);
  t.equal(noUrl.code, 2);
  t.match(noUrl.stderr, /Asynchronous receipts need --receipt-url/);
  t.notOk(existsSync(path.join(dir, 'nothing')));
});
