// Covers the as2-receiver over HTTPS on 127.0.0.1 with a certificate from the store: an AS2 message posted by a client trusting that certificate gets its MDN and is stored; plain HTTP to the port gets a 400 saying to use https://; the certificate served is the stored one, with its stored issuers sent along; a pier as2-sender delivers to it with the certificate pinned and fails with a TLS error without the pin; check-connection reports the tls step; an expired certificate is still served, with a warning in the log and a certificate_expired alert naming the receiver.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import http from 'node:http';
import { Writable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import { pino } from 'pino';
import t from 'tap';
import { formatDispositionNotificationOptions, packOutgoing, parseMdn } from '../../actors/as2/index.js';
import { checkCertificateExpiry } from '../../runtime/certificates/expiry-check.js';
import {
  organization,
  partner,
  startReceiver,
  startSender,
  storeCertificate,
  syncSignedCompressed,
} from '../helpers/as2.js';
import { makeFixtures } from '../helpers/certificates.js';
import { sql } from '../helpers/database.js';
import { upload, waitForMessage, waitForMessages, type Message } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { handshake, issuedChain, postOverTls, serverCertificate } from '../helpers/tls.js';

const logged: string[] = [];
const server = await startTestServer(t, {
  logger: pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged.push(chunk.toString());
        done();
      },
    }),
  ),
});
const f = makeFixtures(t);
f.selfSigned('pier', '/O=pier/CN=pier.example');
serverCertificate(f, 'tls');
issuedChain(f);
// Same name as the intermediate, another key, valid longer: only its signature can tell it apart.
f.openssl(
  'req -x509 -newkey rsa:2048 -nodes -keyout decoy.key -out decoy.crt -days 60 -subj',
  '/CN=Pier Test Issuing CA',
);
f.dated('old', '/CN=localhost', '20200101000000Z', '20210101000000Z');

const cert = await storeCertificate(server, f, 'pier');
const tlsCert = await storeCertificate(server, f, 'tls');
await storeCertificate(server, f, 'root', false);
await storeCertificate(server, f, 'decoy', false);
const intermediate = await storeCertificate(server, f, 'intermediate', false);
const leaf = await storeCertificate(server, f, 'leaf');
const old = await storeCertificate(server, f, 'old');

const url = await startReceiver(server, 'secure', { tls_certificate_id: tlsCert });
const port = Number(new URL(url).port);

const profile = syncSignedCompressed;
// One pier plays both sides: acme (ACME) sends to globex (GLOBEX), received as organization globex-in.
await organization(server, 'acme', 'ACME', cert);
const globex = await partner(server, 'globex', 'GLOBEX', url, cert, profile, {
  tls_trusted_certificate_ids: [tlsCert],
});
const unpinned = await partner(server, 'unpinned', 'UNPINNED', url, cert, profile);
await organization(server, 'globex-in', 'GLOBEX', cert);
await partner(server, 'acme-in', 'ACME', url, cert, profile);
await startSender(server, 'out');

const pierCert = new X509Certificate(f.read('pier.crt'));
const pierKey = createPrivateKey(f.read('pier.key'));

async function inbound(as2MessageId: string): Promise<Message> {
  const mine = (m: Message) => m.protocols.as2?.message_id === as2MessageId;
  const list = await waitForMessages(
    server,
    'from=acme-in&limit=100',
    (l) => l.some(mine),
    `the message ${as2MessageId} stored`,
  );
  return list.find(mine);
}

t.test('a client trusting the certificate posts an AS2 message: MDN and stored', async (t) => {
  const document = Buffer.from("UNA:+.? '\r\nUNB+UNOC:3+ACME+GLOBEX+261121:1200+1'\r\n");
  const packed = packOutgoing(document, {
    filename: 'order.edi',
    sign: { algorithm: 'sha-256', certificate: pierCert, privateKey: pierKey },
    encrypt: { algorithm: 'aes256-cbc', certificate: pierCert },
  });
  const id = '<https-direct-1@test>';
  const answer = await postOverTls(
    url,
    {
      ...packed.headers,
      'AS2-Version': '1.2',
      'AS2-From': 'ACME',
      'AS2-To': 'GLOBEX',
      'Message-ID': id,
      'Disposition-Notification-To': 'mailto:edi@acme.example',
      'Disposition-Notification-Options': formatDispositionNotificationOptions(['sha-256']),
    },
    packed.body,
    f.read('tls.crt'),
  );
  t.equal(new URL(url).protocol, 'https:');
  t.equal(answer.status, 200);
  t.match(answer.headers.server, /^pier\//);
  const mdn = parseMdn(answer.body, answer.headers, { verificationCerts: [pierCert], requireSigned: true });
  t.match(mdn.fields.get('disposition'), /processed$/);
  t.equal(mdn.mic?.digest.toString('base64'), packed.mic.digest.toString('base64'), 'the MIC');
  const stored = await inbound(id);
  t.equal(stored.from, 'acme-in');
  t.equal(stored.to, 'globex-in');
  const unpacked = await server.call('GET', `/api/v1/messages/${stored.id}/payload?stage=unpacked`);
  t.equal(unpacked.raw, document.toString(), 'the document as sent');
});

t.test('plain HTTP to the HTTPS port gets a 400 saying so and stores nothing', async (t) => {
  const before = (await server.call('GET', '/api/v1/messages?limit=100')).body.data.messages.length;
  const outcome = await new Promise<string>((resolve) => {
    const request = http.request(`http://127.0.0.1:${port}/as2`, { method: 'POST' }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve(`${response.statusCode} ${response.headers.server} ${body}`));
    });
    request.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    request.end('AS2 body');
  });
  t.match(
    outcome,
    /^400 pier(\/\S+)? This port speaks HTTPS: send the AS2 message to an https:\/\/ address\n$/,
    'a 400 with the Server header, saying what to change',
  );
  const after = (await server.call('GET', '/api/v1/messages?limit=100')).body.data.messages.length;
  t.equal(after, before);
  const still = await handshake(port, f.read('tls.crt'));
  t.ok(still.authorized, 'the receiver still serves TLS');
});

t.test('the certificate served is the stored one', async (t) => {
  const stored = (await server.call('GET', `/api/v1/certificates/${tlsCert}`)).body.data;
  const seen = await handshake(port, f.read('tls.crt'));
  t.ok(seen.authorized, `trusted by a client holding it: ${seen.authorizationError}`);
  t.match(seen.protocol, /^TLSv1\.[23]$/);
  t.equal(seen.peer.fingerprint256, stored.fingerprint_sha256);
  t.equal(seen.peer.fingerprint, stored.fingerprint_sha1);
  const stranger = await handshake(port);
  t.notOk(stranger.authorized, 'a client without it does not trust it');
  t.equal(stranger.authorizationError, 'DEPTH_ZERO_SELF_SIGNED_CERT');
});

t.test(
  'issuers in the store are sent after the certificate (by signature, not name); the root is not',
  async (t) => {
    const chainedUrl = await startReceiver(server, 'chained', { tls_certificate_id: leaf });
    const seen = await handshake(Number(new URL(chainedUrl).port), f.read('root.crt'));
    t.ok(seen.authorized, `a client trusting only the root accepts it: ${seen.authorizationError}`);
    const stored = async (id: number) =>
      (await server.call('GET', `/api/v1/certificates/${id}`)).body.data.fingerprint_sha256;
    t.equal(seen.peer.fingerprint256, await stored(leaf));
    t.equal(
      seen.peer.issuerCertificate.fingerprint256,
      await stored(intermediate),
      'the intermediate followed',
    );
    // openssl as the independent reader of what was sent: the leaf and the intermediate, no root.
    const shown = f.openssl(`s_client -connect 127.0.0.1:${new URL(chainedUrl).port} -showcerts`);
    t.equal(shown.match(/-----BEGIN CERTIFICATE-----/g)?.length, 2, 'two certificates sent');
    t.match(shown, / 0 s:CN ?= ?localhost\n\s+i:CN ?= ?Pier Test Issuing CA/);
    t.match(shown, / 1 s:CN ?= ?Pier Test Issuing CA\n\s+i:CN ?= ?Pier Test Root/);
    await server.call('POST', '/api/v1/services/as2-receiver/chained/stop');
  },
);

t.test('a pier sender delivers over HTTPS with the certificate pinned, not without', async (t) => {
  const content = 'ISA*00*HTTPS-PINNED~\n';
  const made = await upload(
    server,
    { from: 'acme', to: 'globex', target: 'out' },
    { name: 'pinned.x12', content },
  );
  t.equal(made.status, 201, made.raw);
  const sent = await waitForMessage(
    server,
    made.body.data.id,
    (m) => m.status === 'Delivered' || m.status === 'Error',
    'the pinned delivery',
  );
  t.equal(sent.status, 'Delivered', sent.deliveries[0]?.last_error ?? '');
  t.equal(sent.protocols.as2.mdn.disposition, 'automatic-action/MDN-sent-automatically; processed');
  const received = await inbound(sent.protocols.as2.message_id);
  t.equal((await server.call('GET', `/api/v1/messages/${received.id}/payload?stage=unpacked`)).raw, content);

  const refused = await upload(
    server,
    { from: 'acme', to: 'unpinned', target: 'out' },
    { name: 'unpinned.x12', content: 'ISA*00*HTTPS-UNPINNED~\n' },
  );
  t.equal(refused.status, 201, refused.raw);
  const failed = await waitForMessage(
    server,
    refused.body.data.id,
    (m) => m.status === 'Delivered' || m.status === 'Error',
    'the unpinned delivery',
  );
  t.equal(failed.status, 'Error');
  t.match(failed.deliveries[0].last_error, /DEPTH_ZERO_SELF_SIGNED_CERT: self[- ]signed certificate/);
});

t.test('check-connection reports the tls step against the HTTPS receiver', async (t) => {
  const check = (id: number) =>
    server.call('POST', `/api/v1/as2/remote-profiles/${id}/check-connection`, { body: { sender: 'out' } });
  const ok = await check(globex);
  t.equal(ok.status, 200, ok.raw);
  t.equal(ok.body.data.ok, true, ok.raw);
  t.equal(ok.body.data.steps.tls.status, 'ok');
  t.match(ok.body.data.steps.tls.detail, /^TLSv1\.[23], .*; server certificate localhost valid until /);
  t.notMatch(ok.body.data.steps.tls.detail, /not verified/);
  t.match(ok.body.data.steps.http.detail, /405/, 'a GET to the AS2 address');

  const notTrusted = await check(unpinned);
  t.equal(notTrusted.body.data.ok, false);
  t.equal(notTrusted.body.data.steps.connect.status, 'ok');
  t.equal(notTrusted.body.data.steps.tls.status, 'failed');
  t.match(notTrusted.body.data.problem, /^tls: TLS failed: DEPTH_ZERO_SELF_SIGNED_CERT/);
  t.equal(notTrusted.body.data.steps.http.status, 'skipped');
});

t.test('an expired certificate is served, with a warning and an alert naming the receiver', async (t) => {
  const agedUrl = await startReceiver(server, 'aged', { tls_certificate_id: old });
  const seen = await handshake(Number(new URL(agedUrl).port));
  const stored = (await server.call('GET', `/api/v1/certificates/${old}`)).body.data;
  t.equal(seen.peer.fingerprint256, stored.fingerprint_sha256, 'the expired certificate is served');
  const warning = logged
    .map((line) => JSON.parse(line) as { level: number; msg: string; instance?: string })
    .find((l) => l.instance === 'as2-receiver:aged' && l.level === 40);
  t.equal(
    warning?.msg,
    `tls_certificate_id: certificate ${old} expired on 2021-01-01T00:00:00.000Z; serving HTTPS with it anyway`,
  );

  await checkCertificateExpiry(server.database.orm.em.fork() as EntityManager, new Date());
  const [alert] = await sql<{ summary: string; details: { users: unknown[] } }>(
    server.db.url,
    `select summary, details from alert where code = 'certificate_expired' and subject_id = $1`,
    [String(old)],
  );
  t.match(
    alert?.summary,
    /it is used by the plugin configuration as2-receiver\/aged \(tls_certificate_id\)$/,
  );
  t.same(alert?.details.users, [
    {
      kind: 'plugin-config',
      name: 'as2-receiver/aged',
      fields: ['tls_certificate_id'],
      link: '/api/v1/plugins/configs/as2-receiver/aged',
    },
  ]);
  await server.call('POST', '/api/v1/services/as2-receiver/aged/stop');
});

t.test('no private key in the log', async (t) => {
  const text = logged.join('');
  t.notOk(/PRIVATE KEY/.test(text));
  for (const name of ['tls', 'leaf', 'old', 'pier'])
    t.notOk(text.includes(f.read(`${name}.key`).toString().split('\n')[1]!), `${name}.key`);
});
