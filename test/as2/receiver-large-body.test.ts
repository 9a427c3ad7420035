// Covers how a running as2-receiver takes large bodies (1 MiB and more, stored as they arrive) over real HTTP: an openssl-built message sent chunked and one sent with a length are processed with the right MIC in a verified receipt and stored byte for byte; a body over max_message_mib (declared or not) is 413, one that ends early and one without AS2 headers are refused, and none of these leaves anything in the payload directory or the message list.
import { createHash, randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import t from 'tap';
import { parseMdn } from '../../actors/as2/index.js';
import { organization, partner, startReceiver, storeCertificate, syncSigned } from '../helpers/as2.js';
import { postInWrites } from '../helpers/http-peer.js';
import type { Message } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { asHttp, signedPart, writeFixture } from '../helpers/smime.js';
import { waitFor } from '../helpers/wait.js';
import { makeParties } from './parties.js';

const server = await startTestServer(t);
const parties = makeParties();
t.teardown(() => parties.remove());
const { fixtures, bob } = parties;
const openssl = fixtures.openssl;

const bobCert = await storeCertificate(server, fixtures, 'bob');
const aliceCert = await storeCertificate(server, fixtures, 'alice', false);
// 2 MiB at most: large bodies are stored from 1 MiB on, so both limits are reachable.
const url = await startReceiver(server, 'in', { max_message_mib: 2 });
await organization(server, 'bob', 'BOB', bobCert);
const profile = syncSigned;
await partner(server, 'alice', 'ALICE', 'http://127.0.0.1:9/as2', aliceCert, profile);

const document = randomBytes(1536 * 1024);
const entity = Buffer.concat([
  Buffer.from(
    'Content-Type: application/octet-stream\r\nContent-Transfer-Encoding: binary\r\n' +
      'Content-Disposition: attachment; filename="large.bin"\r\n\r\n',
  ),
  document,
]);
writeFixture(fixtures, 'entity.mime', entity);
openssl('cms -sign -binary -in entity.mime -signer alice.crt -inkey alice.key -md sha256 -out signed.eml');
const signed = fixtures.read('signed.eml');
const signedEntity = signedPart(signed, asHttp(signed).headers['Content-Type']!);
const mic = createHash('sha256').update(signedEntity).digest('base64');

/** openssl encrypts the signed message for bob; `stream` writes BER with indefinite lengths. */
function encrypted(cipher: string, stream: boolean): Buffer {
  openssl(
    `cms -encrypt -binary -in signed.eml ${cipher} -recip bob.crt -outform DER -out enc.der`,
    ...(stream ? ['-stream'] : []),
  );
  return fixtures.read('enc.der');
}

const as2Headers = (messageId: string) => ({
  'AS2-Version': '1.2',
  'AS2-From': 'ALICE',
  'AS2-To': 'BOB',
  'Message-ID': messageId,
  'Disposition-Notification-To': 'edi@alice.example',
  'Disposition-Notification-Options':
    'signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256',
  'Content-Type': 'application/pkcs7-mime; smime-type=enveloped-data; name=smime.p7m',
});

/**
 * POSTs `body` in 64 KiB writes; without `length`, chunked (no Content-Length). With `hold`,
 * only the headers go out: the answer to a declared length comes before any of the body.
 */
const post = (headers: Record<string, string>, body: Buffer, length = true, hold = false) =>
  postInWrites(url, headers, body, { length, hold });

const payloadDir = path.join(server.dataDir, 'payloads');
const storedMessages = async () => (await readdir(payloadDir).catch(() => [] as string[])).sort();

async function messageByAs2Id(as2Id: string): Promise<Message | undefined> {
  const list = await server.call('GET', '/api/v1/messages?limit=100');
  return (list.body.data.messages as Message[]).find((m) => m.protocols.as2?.message_id === as2Id);
}

async function download(message: Message, stage: string): Promise<Buffer> {
  return (await server.call('GET', `/api/v1/messages/${message.id}/payload?stage=${stage}`)).bytes as Buffer;
}

t.test('large messages are processed: MIC in a verified receipt, stages byte for byte', async (t) => {
  for (const [label, body, length] of [
    ['DER, AES-256-CBC, sent chunked', encrypted('-aes256', false), false],
    ['BER -stream, AES-256-GCM, sent with a length', encrypted('-aes-256-gcm', true), true],
  ] as const) {
    const id = `<${label.replace(/\W+/g, '-')}@alice.example>`;
    const answer = await post(as2Headers(id), body, length);
    t.equal(answer.status, 200, `${label}: 200`);
    const mdn = parseMdn(answer.body, answer.headers as Record<string, string>, {
      verificationCerts: [bob.certificate],
    });
    t.match(mdn.fields.get('disposition'), /; processed$/, `${label}: processed`);
    t.equal(mdn.mic?.digest.toString('base64'), mic, `${label}: the MIC of the signed entity`);
    const message = await messageByAs2Id(id);
    t.equal(message?.status, 'NotRouted', `${label}: stored`);
    t.same(await download(message!, 'unpacked'), document, `${label}: unpacked is the document`);
    t.same(await download(message!, 'received'), body, `${label}: received is the body as sent`);
  }
});

t.test('over max_message_mib: 413, nothing stored', async (t) => {
  const before = await storedMessages();
  const body = randomBytes(2 * 1024 * 1024 + 1);
  const declared = await post(as2Headers('<too-large-1@alice.example>'), body, true, true);
  t.equal(declared.status, 413, 'declared too large');
  t.match(declared.body.toString(), /limited to 2 MiB/);
  const chunked = await post(as2Headers('<too-large-2@alice.example>'), body, false);
  t.equal(chunked.status, 413, 'found too large while storing it (chunked)');
  t.same(await storedMessages(), before, 'nothing left in the payload directory');
  t.notOk(await messageByAs2Id('<too-large-2@alice.example>'), 'no message');
});

/** Sends the headers and half of a declared 1.8 MiB body, then closes its side. */
function truncated(): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(new URL(url).port), '127.0.0.1');
    const head = Object.entries(as2Headers('<truncated@alice.example>'))
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.write(`POST /as2 HTTP/1.1\r\nHost: 127.0.0.1\r\n${head}Content-Length: ${1800 * 1024}\r\n\r\n`);
    socket.end(randomBytes(1200 * 1024));
  });
}

t.test('a body that ends early is refused and nothing is stored', async (t) => {
  const before = await storedMessages();
  const answer = await truncated();
  // Node's HTTP server answers a request it cannot finish parsing while pier removes the
  // part it stored, so the removal may follow the answer by a moment.
  t.match(answer, /^HTTP\/1\.1 400 /, 'answered 400');
  await waitFor(
    async () => JSON.stringify(await storedMessages()) === JSON.stringify(before),
    'the stored part to be removed',
  );
  t.same(await storedMessages(), before, 'nothing left in the payload directory');
  t.notOk(await messageByAs2Id('<truncated@alice.example>'), 'no message');
});

t.test('a large body without AS2 headers is refused and nothing is stored', async (t) => {
  const before = await storedMessages();
  const answer = await post({ 'Content-Type': 'application/octet-stream' }, randomBytes(1536 * 1024), false);
  t.equal(answer.status, 400);
  t.match(answer.body.toString(), /AS2-From, AS2-To and Message-ID/);
  t.same(await storedMessages(), before, 'nothing left in the payload directory');
});
