// Covers a clean stop in the middle of an AS2 receive at concurrency 16: every
// request is answered 200 with a `processed` receipt or 503 with Retry-After, never a reset;
// `pier serve` exits 0 within PIER_SHUTDOWN_TIMEOUT; a second process takes the requests sent
// again and delivers what the first left; every message is stored and written exactly once.
import { execFileSync } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import t from 'tap';
import { formatMic, packOutgoing } from '../../actors/as2/index.js';
import { as2Headers, syncSignedCompressed } from '../helpers/as2.js';
import { createTestDatabase } from '../helpers/database.js';
import { tempDir } from '../helpers/flow.js';
import { freePort } from '../helpers/free-port.js';
import { bobFromAliceOn, mustOn, pierStarter, terminate, type PierProcess } from '../helpers/process.js';
import { allDelivered, rowCounter } from '../helpers/row-counts.js';
import { waitFor } from '../helpers/wait.js';

const messages = 400;
const concurrency = 16;
const shutdownTimeoutSeconds = 20;
const db = await createTestDatabase();
t.teardown(() => db.drop());
const dir = await tempDir(t, 'pier-drain-as2-');
const outbox = path.join(dir, 'out');
const start = pierStarter(t, db.url, dir, { PIER_SHUTDOWN_TIMEOUT: String(shutdownTimeoutSeconds) });
const count = rowCounter(db.url);

// One key pair for both sides: ALICE signs and BOB decrypts and signs receipts with it.
execFileSync(
  'openssl',
  'req -x509 -newkey rsa:2048 -nodes -keyout k.pem -out c.pem -days 30 -subj /CN=drain'.split(' '),
  { cwd: dir, stdio: 'ignore' },
);
const certificatePem = await readFile(path.join(dir, 'c.pem'));
const keyPem = await readFile(path.join(dir, 'k.pem'));
const certificate = new X509Certificate(certificatePem);
const privateKey = createPrivateKey(keyPem);

const requests = Array.from({ length: messages }, (_, i) => {
  const document = `${i}:UNB+UNOC:3+ALICE:14+BOB:14+261121:1200+${i}'UNH+1+ORDERS:D:96A:UN'\n`.repeat(20);
  const packed = packOutgoing(Buffer.from(document), {
    contentType: 'application/edifact',
    filename: 'orders.edi',
    compress: 'before-sign',
    sign: { algorithm: 'sha-256', certificate, privateKey },
    encrypt: { algorithm: 'aes256-cbc', certificate },
  });
  return { body: packed.body, headers: packed.headers, mic: formatMic(packed.mic) };
});

async function configure(p: PierProcess, receiverPort: number): Promise<void> {
  const form = new FormData();
  form.set('certificate', new Blob([certificatePem]), 'c.pem');
  form.set('private_key', new Blob([keyPem]), 'k.pem');
  form.set('description', 'drain');
  const uploaded = await fetch(`${p.url}/api/v1/certificates`, {
    method: 'POST',
    headers: { 'X-Requested-With': 'test' },
    body: form,
  });
  const cert = ((await uploaded.json()) as { data: { id: number } }).data.id;
  await bobFromAliceOn(p, cert, cert, syncSignedCompressed);
  await mustOn(p, '/plugins/configs?type=file-writer', {
    name: 'out',
    directory: outbox,
    path_pattern: '{from}/{id}-{filename}',
  });
  await mustOn(p, '/plugins/configs?type=as2-receiver', {
    name: 'in',
    host: '127.0.0.1',
    port: receiverPort,
    path: '/as2',
  });
  await mustOn(p, '/routes', { source_plugin: 'in', from: 'alice', to: 'bob', target_plugin: 'out' });
}

type Outcome =
  | { kind: 'receipt'; mic: string; disposition: string }
  | { kind: 'busy'; retryAfter: string | undefined }
  | { kind: 'refused' }
  | { kind: 'other'; what: string };

function post(url: string, i: number): Promise<Outcome> {
  const r = requests[i]!;
  return new Promise((resolve) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: {
          ...as2Headers('ALICE', `<drain-${i}@alice.example>`),
          ...r.headers,
          'Content-Length': String(r.body.length),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('error', (error) => resolve({ kind: 'other', what: `response ${error.message}` }));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('latin1');
          if (response.statusCode === 503) {
            const retryAfter = response.headers['retry-after'];
            return resolve({
              kind: 'busy',
              retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
            });
          }
          if (response.statusCode !== 200)
            return resolve({ kind: 'other', what: `HTTP ${response.statusCode}` });
          resolve({
            kind: 'receipt',
            disposition: /^Disposition:[ \t]*([^\r\n]*)/im.exec(text)?.[1] ?? '',
            mic: /^Received-Content-MIC:[ \t]*([^\r\n]*)/im.exec(text)?.[1]?.trim() ?? '',
          });
        });
      },
    );
    // Refused: nothing listens (between the two processes), so nothing was sent.
    request.on('error', (error: NodeJS.ErrnoException) =>
      resolve(
        error.code === 'ECONNREFUSED'
          ? { kind: 'refused' }
          : { kind: 'other', what: error.code ?? error.message },
      ),
    );
    request.end(r.body);
  });
}

t.test(
  'SIGTERM mid-receive at concurrency 16: 200 with a receipt or 503, never a reset; each message once',
  async (t) => {
    const receiverPort = await freePort();
    const url = `http://127.0.0.1:${receiverPort}/as2`;
    const first = await start();
    await configure(first, receiverPort);
    await waitFor(async () => (await post(url, 0)).kind === 'receipt', 'the receiver answering', 30_000, 100);

    const tally = { receipts: 1, busy: 0, refused: 0, wrongReceipts: [] as string[], broken: [] as string[] };
    const retryAfters = new Set<string | undefined>();
    let next = 1;
    const sender = async () => {
      for (let i = next++; i < messages; i = next++) {
        for (;;) {
          const outcome = await post(url, i);
          if (outcome.kind === 'receipt') {
            tally.receipts++;
            if (!/;\s*processed\s*$/.test(outcome.disposition) || outcome.mic !== requests[i]!.mic)
              tally.wrongReceipts.push(`${i}: ${outcome.disposition} ${outcome.mic}`);
            break;
          }
          if (outcome.kind === 'other') {
            tally.broken.push(`${i}: ${outcome.what}`);
            break;
          }
          // Sent again, as an AS2 sender does: after Retry-After for a 503, and soon after a
          // refused connection (nothing was sent; the next process will listen).
          let waitMs = 200;
          if (outcome.kind === 'busy') {
            tally.busy++;
            retryAfters.add(outcome.retryAfter);
            waitMs = Number(outcome.retryAfter) * 1000;
          } else tally.refused++;
          await new Promise((resolve) => setTimeout(resolve, waitMs));
        }
      }
    };
    const load = Promise.all(Array.from({ length: concurrency }, sender));

    await waitFor(() => tally.receipts >= 100, '100 receipts', 120_000, 5);
    const { code, seconds: stopSeconds } = await terminate(first);
    t.equal(code, 0, 'exit code 0');
    t.ok(stopSeconds < shutdownTimeoutSeconds, `stopped in ${stopSeconds.toFixed(1)} s, within the deadline`);
    t.equal(await count("delivery where state = 'delivering'"), 0, 'no delivery is left claimed');
    const receiptsAtStop = tally.receipts;

    await start();
    await load;
    t.same(tally.broken, [], 'no request was reset or answered otherwise');
    t.same(tally.wrongReceipts, [], 'every receipt says processed, with the MIC sent');
    t.equal(tally.receipts, messages, 'every message got its receipt');
    t.ok(
      tally.busy > 0,
      `requests during the drain were answered 503 (${tally.busy}; ${tally.refused} refused while no process listened)`,
    );
    t.same([...retryAfters], ['10'], 'every 503 carries Retry-After');
    t.ok(receiptsAtStop < messages, `stopped mid-receive: ${receiptsAtStop} receipts before the stop`);

    await allDelivered(count, messages, 120_000, 'all written');
    t.equal(await count('message'), messages, 'each message stored once');
    const written = (await readdir(path.join(outbox, 'alice'))).filter((f) => !f.startsWith('.'));
    t.equal(written.length, messages, 'each message written once');
  },
);
