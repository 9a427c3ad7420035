// Covers what a running as2-receiver takes from whom, over real HTTP: a large body from an unknown AS2-From, or to an unknown AS2-To, is answered with the unknown-trading-partner refusal while only its first 64 KiB are kept (shown as the `received` stage, with the body's real length in protocols.as2); a partner's own max_message_mib refuses a larger declared body with 413 before any of it is sent; and the per-partner and per-address limits on requests and bytes in flight answer 503 with Retry-After, counting held requests and freeing their share when they end.
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import t from 'tap';
import { parseMdn } from '../../actors/as2/index.js';
import { organization, partner, startReceiver, storeCertificate, syncSigned } from '../helpers/as2.js';
import { postInWrites } from '../helpers/http-peer.js';
import type { Message } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { makeParties } from './parties.js';

const server = await startTestServer(t);
const parties = makeParties();
t.teardown(() => parties.remove());
const { fixtures, bob } = parties;

const bobCert = await storeCertificate(server, fixtures, 'bob');
const aliceCert = await storeCertificate(server, fixtures, 'alice', false);
const open = await startReceiver(server, 'in', { max_message_mib: 64 });
const tight = await startReceiver(server, 'tight', {
  max_message_mib: 8,
  max_requests_per_partner: 2,
  max_in_flight_mib_per_partner: 1,
  max_requests_per_address: 3,
  max_in_flight_mib_per_address: 2,
});
await organization(server, 'bob', 'BOB', bobCert);
const profile = syncSigned;
const aliceId = await partner(server, 'alice', 'ALICE', 'http://127.0.0.1:9/as2', aliceCert, profile);

const as2Headers = (from: string, to: string, messageId?: string) => ({
  'AS2-Version': '1.2',
  'AS2-From': from,
  'AS2-To': to,
  ...(messageId ? { 'Message-ID': messageId } : {}),
  'Disposition-Notification-To': 'edi@example.com',
  'Disposition-Notification-Options':
    'signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256',
  'Content-Type': 'application/pkcs7-mime; smime-type=enveloped-data; name=smime.p7m',
});

/** POSTs `body` in 64 KiB writes, with a Content-Length unless `length` is false (chunked). */
const post = (url: string, headers: Record<string, string>, body: Buffer, length = true) =>
  postInWrites(url, headers, body, { length, close: true });

/** Sends only the headers of a request declaring `length` bytes: it stays in flight until closed. */
function hold(url: string, headers: Record<string, string>, length: number): net.Socket {
  const socket = net.connect(Number(new URL(url).port), '127.0.0.1');
  socket.on('error', () => {});
  const head = Object.entries({ ...headers, 'Content-Length': String(length) })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(`POST /as2 HTTP/1.1\r\nHost: 127.0.0.1\r\n${head}\r\n`);
  return socket;
}

interface RawAnswer {
  status: number;
  retryAfter: string | undefined;
  text: string;
}

/**
 * A request on a plain socket: only the headers, declaring `length` bytes it never sends; or a
 * whole `body`; or `chunks` in chunked encoding. The receiver may answer and close before the
 * body is sent; what it answered is read all the same (an HTTP client's EPIPE would hide it).
 */
function raw(
  url: string,
  headers: Record<string, string>,
  send: { length: number } | { body: Buffer } | { chunks: Buffer[] },
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = net.connect(Number(new URL(url).port), '127.0.0.1');
    const got: Buffer[] = [];
    socket.on('error', () => {});
    socket.on('data', (c: Buffer) => {
      got.push(c);
      // One answer is all this reads: the connection may stay open after it.
      if (/\r\n\r\n[^]*\n$/.test(Buffer.concat(got).toString('latin1'))) socket.destroy();
    });
    socket.on('close', () => {
      const text = Buffer.concat(got).toString('latin1');
      resolve({
        status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0),
        retryAfter: /\r\nRetry-After: *(\S+)/i.exec(text)?.[1],
        text,
      });
    });
    const framing =
      'chunks' in send
        ? { 'Transfer-Encoding': 'chunked' }
        : { 'Content-Length': String('body' in send ? send.body.length : send.length) };
    const head = Object.entries({ ...headers, ...framing })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(`POST /as2 HTTP/1.1\r\nHost: 127.0.0.1\r\n${head}\r\n`);
    if ('body' in send) socket.write(send.body);
    if (!('chunks' in send)) return;
    for (const chunk of send.chunks) {
      if (socket.destroyed) break;
      socket.write(`${chunk.length.toString(16)}\r\n`);
      socket.write(chunk);
      socket.write('\r\n');
    }
    if (!socket.destroyed) socket.write('0\r\n\r\n');
  });
}

const payloadDir = path.join(server.dataDir, 'payloads');
const storedMessages = async () => (await readdir(payloadDir).catch(() => [] as string[])).sort();

async function messageByAs2Id(as2Id: string): Promise<Message | undefined> {
  const list = await server.call('GET', '/api/v1/messages?limit=100');
  return (list.body.data.messages as Message[]).find((m) => m.protocols.as2?.message_id === as2Id);
}

t.test('a stranger’s large body is answered and only its first 64 KiB are kept', async (t) => {
  for (const [label, from, to] of [
    ['unknown AS2-From', 'MALLORY', 'BOB'],
    ['unknown AS2-To', 'ALICE', 'NOBODY'],
  ] as const) {
    const before = await storedMessages();
    const body = randomBytes(6 * 1024 * 1024);
    const id = `<stranger-${from}-${to}@example.com>`;
    for (const length of [true, false]) {
      const messageId = id.replace('@', `-${length ? 'length' : 'chunked'}@`);
      const answer = await post(open, as2Headers(from, to, messageId), body, length);
      t.equal(answer.status, 200, `${label}: answered`);
      const mdn = parseMdn(answer.body, answer.headers as Record<string, string>, {
        verificationCerts: from === 'MALLORY' ? [bob.certificate] : [],
      });
      t.match(mdn.fields.get('disposition'), /unknown-trading-partner/, `${label}: refused as unknown`);
      const message = await messageByAs2Id(messageId);
      t.equal(message?.status, 'Refused', `${label}: recorded as refused`);
      t.equal(message?.protocols.as2?.body_bytes, body.length, `${label}: the body's real length is shown`);
      t.equal(message?.protocols.as2?.kept_bytes, 64 * 1024, `${label}: how much was kept is shown`);
      const received = await server.call('GET', `/api/v1/messages/${message!.id}/payload?stage=received`);
      t.same(
        received.bytes,
        body.subarray(0, 64 * 1024),
        `${label}: the first 64 KiB are the received stage`,
      );
    }
    t.same(await storedMessages(), before, `${label}: nothing of the bodies in the payload directory`);
  }
});

t.test('a partner’s own max_message_mib refuses a larger declared body before it is read', async (t) => {
  const set = await server.call('PUT', `/api/v1/as2/remote-profiles/${aliceId}`, {
    body: { max_message_mib: 1 },
  });
  t.equal(set.status, 200);
  t.equal(set.body.data.max_message_mib, 1, 'shown on the profile');
  t.teardown(() =>
    server.call('PUT', `/api/v1/as2/remote-profiles/${aliceId}`, { body: { max_message_mib: null } }),
  );
  // Contexts are kept 5 s by the receiver: wait until the new limit is seen.
  const socketAnswer = (socket: net.Socket) =>
    new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    });
  const answer = await waitFor(async () => {
    const socket = hold(open, as2Headers('ALICE', 'BOB', '<partner-limit@alice.example>'), 1536 * 1024);
    const text = await socketAnswer(socket);
    return / 413 /.test(text.split('\r\n')[0]!) ? text : false;
  }, 'the partner limit to apply');
  t.match(
    answer,
    /Messages from ALICE are limited to 1 MiB/,
    'named the partner and its limit, no body sent',
  );
  t.match(answer, /Connection: close/i);
  const other = await post(
    open,
    as2Headers('MALLORY', 'BOB', '<not-alice@example.com>'),
    randomBytes(1536 * 1024),
  );
  t.equal(other.status, 200, 'the receiver’s own limit still applies to others');
  const chunked = await post(
    open,
    as2Headers('ALICE', 'BOB', '<partner-limit-chunked@alice.example>'),
    randomBytes(1536 * 1024),
    false,
  );
  t.equal(chunked.status, 413, 'found over the limit while reading a chunked body');
  t.notOk(await messageByAs2Id('<partner-limit-chunked@alice.example>'), 'no message');
});

t.test('requests and bytes in flight per partner and per address: 503 with Retry-After', async (t) => {
  // Without a Message-ID an admitted probe is a 400 that stores nothing; a refused one a 503.
  // Admitted, its body is read and it is answered 400; refused, it is answered before that.
  const probe = (from: string, length = 1) =>
    raw(tight, as2Headers(from, 'BOB'), { body: Buffer.alloc(length) });
  const refused = async (from: string, length?: number) => {
    const a = await probe(from, length);
    if (a.status === 503) return a;
    if (a.status === 400) return false;
    throw new Error(`unexpected answer: ${a.text}`);
  };
  const held: net.Socket[] = [];
  t.teardown(() => held.forEach((s) => s.destroy()));
  t.equal((await probe('ALICE')).status, 400, 'nothing in flight: admitted');

  held.push(hold(tight, as2Headers('ALICE', 'BOB', '<held-1@alice.example>'), 600 * 1024));
  const bytes = await waitFor(() => refused('ALICE', 600 * 1024), 'the held 600 KiB to count');
  t.equal(bytes.retryAfter, '30', 'Retry-After');
  t.match(bytes.text, /Too many bytes of messages in progress from this partner/);
  t.match(bytes.text, /Connection: close/i, 'answered before the body, and the connection closes');

  held.push(hold(tight, as2Headers('ALICE', 'BOB', '<held-2@alice.example>'), 100));
  const requests = await waitFor(() => refused('ALICE'), 'the second held request to count');
  t.equal(requests.retryAfter, '30');
  t.match(requests.text, /Too many messages in progress from this partner/);
  t.equal((await probe('MALLORY')).status, 400, 'another sender from the address is still admitted');

  held.push(hold(tight, as2Headers('MALLORY', 'BOB', '<held-3@example.com>'), 100));
  const address = await waitFor(() => refused('MALLORY'), 'the third held request to count');
  t.equal(address.retryAfter, '30');
  t.match(address.text, /Too many messages in progress from this address/);

  for (const socket of held.splice(0)) socket.destroy();
  await waitFor(async () => (await probe('ALICE')).status === 400, 'the held requests to be let go');
  t.pass('a partner is admitted again once its requests end');

  const big = await probe('MALLORY', 2560 * 1024);
  t.equal(big.status, 503, 'more bytes than an address may have in flight');
  t.match(big.text, /Too many bytes of messages in progress from this address/);
  const chunks = Array.from({ length: 40 }, () => Buffer.alloc(64 * 1024));
  const chunked = await raw(tight, as2Headers('MALLORY', 'BOB', '<chunked-stranger@example.com>'), {
    chunks,
  });
  t.equal(chunked.status, 503, 'also when counted as a chunked body arrives');
  t.equal(chunked.retryAfter, '30');
  t.match(chunked.text, /Too many bytes of messages in progress from this address/);
  const known = await raw(tight, as2Headers('ALICE', 'BOB', '<chunked-known@alice.example>'), { chunks });
  t.equal(known.status, 503, 'and for a known partner, whose share is smaller');
  t.match(known.text, /Too many bytes of messages in progress from this partner/);
  t.notOk(await messageByAs2Id('<chunked-known@alice.example>'), 'nothing recorded');
});

t.test('a sender refused before its body still reads the answer after sending all of it', async (t) => {
  // The whole 2.5 MiB body is written before anything is read, as a simple client does: a
  // server that closed at once with the body unread would reset the connection, and the reset
  // discards the 503 before the client reads it.
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(Number(new URL(tight).port), '127.0.0.1');
    const got: Buffer[] = [];
    socket.pause();
    socket.on('data', (c: Buffer) => got.push(c));
    socket.on('error', reject);
    socket.on('end', () => resolve(Buffer.concat(got).toString('latin1')));
    const head = Object.entries({ ...as2Headers('MALLORY', 'BOB'), 'Content-Length': String(2560 * 1024) })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(`POST /as2 HTTP/1.1\r\nHost: 127.0.0.1\r\n${head}\r\n`);
    socket.write(Buffer.alloc(2560 * 1024), () => setTimeout(() => socket.resume(), 200));
  });
  t.match(answer, /^HTTP\/1\.1 503 /, 'the 503, not a reset connection');
  t.match(answer, /Too many bytes of messages in progress from this address/);
  t.match(answer, /\r\nRetry-After: 30\r\n/);
});
