// Covers a running pier as2-receiver taking a message signed RSASSA-PSS with SHA-256 and the signature algorithm's parameters absent, as pyas2lib writes it (built in the test with node:crypto and hand-written DER): it is processed, the MIC equals `openssl dgst` of the signed entity, and protocols.as2 notes the liberal reading; the same signature over altered content is refused as integrity-check-failed.
import t from 'tap';
import { as2Headers, organization, partner, startReceiver, storeCertificate } from '../helpers/as2.js';
import { handSignedPss } from '../helpers/hand-cms.js';
import { startTestServer } from '../helpers/server.js';
import { opensslDigest, opensslReadsReceipt, writeFixture } from '../helpers/smime.js';
import { makeParties } from './parties.js';
import type { Message } from '../helpers/flow.js';

const server = await startTestServer(t);
const parties = makeParties();
t.teardown(() => parties.remove());
const { fixtures, alice } = parties;

const bobCert = await storeCertificate(server, fixtures, 'bob');
const aliceCert = await storeCertificate(server, fixtures, 'alice', false);
const url = await startReceiver(server);
await organization(server, 'bob', 'BOB', bobCert);
await partner(server, 'alice', 'ALICE', 'http://127.0.0.1:9/as2', aliceCert, {
  signing_algorithm: 'sha256',
  encryption_algorithm: 'none',
  compression: false,
  mdn_mode: 'sync',
  mdn_signed: true,
});

const entity = Buffer.from(
  'Content-Type: application/edi-x12\r\nContent-Transfer-Encoding: binary\r\n' +
    'Content-Disposition: attachment; filename="pss.edi"\r\n\r\nISA*00*PSS~\r\nIEA*1~\r\n',
);

function post(id: string, signedEntity: Buffer, signature: Buffer) {
  const boundary = 'pyas2lib-like-boundary';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\n`),
    signedEntity,
    Buffer.from(
      `\r\n--${boundary}\r\nContent-Type: application/pkcs7-signature; name=smime.p7s\r\n` +
        `Content-Transfer-Encoding: base64\r\n\r\n${signature.toString('base64').replace(/.{76}/g, '$&\r\n')}\r\n--${boundary}--\r\n`,
    ),
  ]);
  return fetch(url, {
    method: 'POST',
    headers: {
      ...as2Headers('ALICE', id),
      'Content-Type': `multipart/signed; protocol="application/pkcs7-signature"; micalg=sha-256; boundary="${boundary}"`,
    },
    body: new Uint8Array(body),
  });
}

async function inbound(id: string): Promise<Message> {
  const list = await server.call('GET', '/api/v1/messages?limit=100');
  return (list.body.data.messages as Message[]).find((m) => m.protocols.as2?.message_id === id);
}

t.test('PSS SHA-256 with absent parameters: processed, MIC right, leniency noted', async (t) => {
  const signature = handSignedPss(entity, {
    certificate: alice.certificate,
    key: alice.privateKey,
    hash: 'sha256',
    saltLength: 32,
  });
  const answer = await post('<pss-1@alice.example>', entity, signature);
  t.equal(answer.status, 200);
  const report = await opensslReadsReceipt(fixtures, answer, 'bob.crt');
  writeFixture(fixtures, 'entity.mime', entity);
  const mic = `${opensslDigest(fixtures, 'sha256', 'entity.mime')}, sha-256`;
  t.match(report, /Disposition: automatic-action\/MDN-sent-automatically; processed\r?\n/);
  t.match(report, `Received-Content-MIC: ${mic}`);
  const stored = await inbound('<pss-1@alice.example>');
  t.equal(stored.refusal, null);
  t.equal(stored.protocols.as2.mic, mic);
  t.match(stored.protocols.as2.signature, {
    algorithm: 'sha-256',
    scheme: 'rsa-pss',
    leniency: /RSASSA-PSS parameters were absent; verified with sha-256 for hash and MGF1/,
  });
});

t.test('the same kind of signature over altered content: refused, integrity-check-failed', async (t) => {
  const signature = handSignedPss(entity, {
    certificate: alice.certificate,
    key: alice.privateKey,
    hash: 'sha256',
    saltLength: 32,
  });
  const altered = Buffer.from(entity.toString().replace('PSS', 'PSX'));
  const answer = await post('<pss-2@alice.example>', altered, signature);
  t.equal(answer.status, 200);
  const body = Buffer.from(await answer.arrayBuffer()).toString('latin1');
  t.match(body, 'processed/Error: integrity-check-failed');
  const stored = await inbound('<pss-2@alice.example>');
  t.match(stored.refusal, 'integrity-check-failed');
});
