/**
 * The receiver alone with large messages: `openssl cms` builds a 100 MiB random document
 * signed (SHA-256) and encrypted (AES-256-CBC, RSA-2048), a `pier serve` receives it over
 * HTTP on loopback, and the server's peak RSS growth is sampled every 20 ms from the POST
 * until the last receipt is back. No pier sender takes part, so the figure is the receiver's own.
 * Options: --mib <n> (default 100), --layers signed-encrypted|encrypted|signed (default
 * signed-encrypted), --stream (openssl -stream: BER with indefinite lengths and chunked content),
 * --garbage (random bytes of the same size labelled as an encrypted message, from the known
 * partner: what a broken or hostile sender posts), --concurrent <n> (n such messages posted at
 * once, default 1: the receiver's large_messages_budget_mib decides how many are opened together),
 * --budget-mib <n> (the receiver's large_messages_budget_mib, default its own default).
 * A 2 MiB warm-up message goes first, so the pool thread's start is not counted. Reports the
 * server's CPU per MiB of body, until the last receipt, besides its memory.
 */
import { execFileSync } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { prepareWithToken } from './lib/api-token.js';
import { benchApi } from './lib/bench-api.js';
import { cpuMsOf, rssOf } from './lib/cpu.js';
import { benchDatabase } from './lib/database.js';
import { startServerProcess } from './lib/server-process.js';

const { values } = parseArgs({
  options: {
    mib: { type: 'string' },
    layers: { type: 'string' },
    stream: { type: 'boolean' },
    garbage: { type: 'boolean' },
    concurrent: { type: 'string' },
    'budget-mib': { type: 'string' },
  },
});
const mib = Number(values.mib ?? 100);
const concurrent = Number(values.concurrent ?? 1);
if (!Number.isInteger(concurrent) || concurrent < 1) throw new Error('--concurrent is a whole number from 1');
const garbage = Boolean(values.garbage);
const layers = values.layers ?? 'signed-encrypted';
if (!['signed-encrypted', 'encrypted', 'signed'].includes(layers))
  throw new Error('--layers is signed-encrypted, encrypted or signed');
const log = (text: string) => process.stderr.write(`${text}\n`);

const workDir = mkdtempSync(path.join(os.tmpdir(), 'pier-bench-receive-'));
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: workDir, stdio: 'ignore' });
openssl(...'req -x509 -newkey rsa:2048 -nodes -keyout k.pem -out c.pem -days 30 -subj /CN=bench'.split(' '));

log(garbage ? `building ${mib} MiB of garbage…` : `building a ${mib} MiB ${layers} message with openssl…`);
const document = Buffer.alloc(mib * 1024 * 1024);
randomFillSync(document);
writeFileSync(
  path.join(workDir, 'entity.mime'),
  Buffer.concat([
    Buffer.from(
      'Content-Type: application/octet-stream\r\nContent-Transfer-Encoding: binary\r\n' +
        'Content-Disposition: attachment; filename="large.bin"\r\n\r\n',
    ),
    document,
  ]),
);
const stream = values.stream ? ['-stream'] : [];
let inner = 'entity.mime';
if (!garbage && layers !== 'encrypted') {
  openssl(
    ...'cms -sign -binary -in entity.mime -signer c.pem -inkey k.pem -md sha256 -out signed.eml'.split(' '),
  );
  inner = 'signed.eml';
}
let bodyFile: string;
let headers: Record<string, string>;
if (garbage) {
  // Random bytes where an encrypted message is expected: nothing in them is CMS.
  bodyFile = 'body.bin';
  writeFileSync(path.join(workDir, bodyFile), document);
  headers = { 'Content-Type': 'application/pkcs7-mime; smime-type=enveloped-data; name=smime.p7m' };
} else if (layers === 'signed') {
  // openssl writes an S/MIME message: its top headers become HTTP headers, the rest the body.
  const message = readFileSync(path.join(workDir, 'signed.eml'));
  const split = message.indexOf('\n\n') >= 0 ? message.indexOf('\n\n') : message.indexOf('\r\n\r\n');
  const top = message
    .subarray(0, split)
    .toString('latin1')
    .replace(/\r?\n[ \t]+/g, ' ');
  headers = {};
  for (const line of top.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0 && !/^mime-version$/i.test(line.slice(0, colon)))
      headers[line.slice(0, colon)] = line.slice(colon + 1).trim();
  }
  bodyFile = 'body.bin';
  writeFileSync(path.join(workDir, bodyFile), message.subarray(split + (message[split] === 0x0d ? 4 : 2)));
} else {
  openssl(
    ...`cms -encrypt -binary -in ${inner} -aes256 -recip c.pem -outform DER -out body.bin`.split(' '),
    ...stream,
  );
  bodyFile = 'body.bin';
  headers = { 'Content-Type': 'application/pkcs7-mime; smime-type=enveloped-data; name=smime.p7m' };
}
document.fill(0);
const bodyBytes = statSync(path.join(workDir, bodyFile)).size;

const db = await benchDatabase();
const token = await prepareWithToken(db.url);
const server = await startServerProcess(db.url);
try {
  const bench = benchApi(server.url, token);
  const api = bench.post;
  const cert = await bench.certificate(path.join(workDir, 'c.pem'), path.join(workDir, 'k.pem'));
  const port = 20000 + Math.floor(Math.random() * 20000);
  await api('/plugins/configs?type=as2-receiver', {
    enabled: false,
    name: 'in',
    host: '127.0.0.1',
    port,
    path: '/as2',
    max_message_mib: Math.max(100, mib * 2),
    // Every message of the run comes from one partner and one address; the limits are only
    // raised past their defaults when needed, so the script also runs on a tree before them.
    ...(mib * 2 * concurrent > 1024
      ? {
          max_in_flight_mib_per_partner: mib * 2 * concurrent,
          max_in_flight_mib_per_address: mib * 2 * concurrent,
        }
      : {}),
    ...(values['budget-mib'] ? { large_messages_budget_mib: Number(values['budget-mib']) } : {}),
  });
  const o = await api('/organizations', { name: 'bob' });
  await api('/as2/local-profiles', {
    local_organization_id: o.id,
    as2id: 'BOB',
    signing_certificate_id: cert,
  });
  const p = await api('/partners', { name: 'alice' });
  await api('/as2/remote-profiles', {
    business_partner_id: p.id,
    as2id: 'ALICE',
    signing_algorithm: layers === 'encrypted' ? 'none' : 'sha256',
    encryption_algorithm: layers === 'signed' ? 'none' : 'aes256-cbc',
    inbound_signature: layers === 'encrypted' ? 'optional' : 'required',
    inbound_encryption: layers === 'signed' ? 'optional' : 'required',
    compression: false,
    mdn_mode: 'sync',
    mdn_signed: true,
    partner_certificate_id: cert,
    signature_certificate_ids: [cert],
    endpoint: 'http://127.0.0.1:9/as2',
  });
  await api('/services/as2-receiver/in/start', {});

  /** POSTs the body file as one message; `finished` is called once its last byte is sent. */
  const post = (messageId: string, finished: () => void) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.request(
        `http://127.0.0.1:${port}/as2`,
        {
          method: 'POST',
          headers: {
            'AS2-Version': '1.2',
            'AS2-From': 'ALICE',
            'AS2-To': 'BOB',
            'Message-ID': messageId,
            'Disposition-Notification-To': 'edi@alice.example',
            'Disposition-Notification-Options':
              'signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256',
            'Content-Length': String(bodyBytes),
            ...headers,
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (c: Buffer) => chunks.push(c));
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('latin1') }),
          );
        },
      );
      request.on('error', reject);
      request.on('finish', finished);
      createReadStream(path.join(workDir, bodyFile)).pipe(request);
    });

  // A warm-up message of 2 MiB, opened in the pool like every large one: the pool thread has
  // loaded its modules before the baseline, as in a receiver that has run a while.
  const warmUp = await new Promise<number>((resolve, reject) => {
    const request = http.request(`http://127.0.0.1:${port}/as2`, {
      method: 'POST',
      headers: {
        'AS2-Version': '1.2',
        'AS2-From': 'ALICE',
        'AS2-To': 'BOB',
        'Message-ID': '<warm-up@alice.example>',
        'Content-Type': 'application/pkcs7-mime; smime-type=enveloped-data; name=smime.p7m',
      },
    });
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', reject);
    request.end(Buffer.alloc(2 * 1024 * 1024, 0x30));
  });
  if (warmUp !== 200) throw new Error(`the warm-up message was answered ${warmUp}`);
  await new Promise((resolve) => setTimeout(resolve, 1000));

  const rssBase = rssOf(server.pid);
  let peak = rssBase;
  let peakWhileSending = rssBase;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(server.pid))), 20);
  log(`posting ${concurrent} × ${Math.round(bodyBytes / 1024 / 1024)} MiB…`);
  const t0 = performance.now();
  const cpu0 = cpuMsOf(server.pid);
  let sent = 0;
  const answers = await Promise.all(
    Array.from({ length: concurrent }, (_, i) =>
      post(`<large-${i + 1}@alice.example>`, () => {
        if (++sent === concurrent) peakWhileSending = peak;
      }),
    ),
  );
  clearInterval(sampler);
  const serverCpuMs = cpuMsOf(server.pid) - cpu0;
  const dispositions = answers.map((a) => /Disposition:[ \t]*([^\r\n]*)/i.exec(a.body)?.[1] ?? null);
  console.log(
    JSON.stringify({
      benchmark: 'as2-receive-large',
      layers: garbage ? 'garbage' : layers,
      ber_stream: Boolean(values.stream),
      concurrent,
      body_mib: Math.round((bodyBytes / 1024 / 1024) * 10) / 10,
      status: [...new Set(answers.map((a) => a.status))],
      disposition: [...new Set(dispositions)],
      seconds: Math.round((performance.now() - t0) / 100) / 10,
      // Taking the bodies in, opening them and answering, until the last receipt.
      server_cpu_ms_per_mib: Math.round((serverCpuMs / ((bodyBytes * concurrent) / 1024 / 1024)) * 100) / 100,
      receiver_rss_growth_mib: Math.round((peak - rssBase) / 1024 / 1024),
      // Until the last byte was sent: taking the body in, before it is opened.
      rss_growth_while_sending_mib: Math.round((peakWhileSending - rssBase) / 1024 / 1024),
    }),
  );
} finally {
  await server.stop();
  await db.drop();
  rmSync(workDir, { recursive: true, force: true });
}
