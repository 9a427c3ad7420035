// Covers a running pier as2-receiver taking the three requests pyas2lib 1.4.4 sent signed RSASSA-PSS (parameters absent, maximum salt length) in test/fixtures/pyas2lib-pss: each is processed with exactly the MIC the README expects, its payload byte for byte and a receipt openssl verifies, and a tampered copy is refused as integrity-check-failed.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { makeFixtures } from '../helpers/certificates.js';
import { organization, partner, startReceiver } from '../helpers/as2.js';
import type { Message } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { asMessage, writeFixture } from '../helpers/smime.js';
import { uploadCertificate } from '../helpers/upload.js';

// Captures kept in the repository (their origin: SOURCE.md beside them).
const vectors = path.resolve(import.meta.dirname, '../fixtures/pyas2lib-pss');
const read = (name: string) => readFileSync(path.join(vectors, name));

// The README's table: file, Message-ID, SHA-256 MIC (base64), payload SHA-256 (hex).
const captures = [
  [
    'signed-1.http',
    '<as2load-pss-signed-000001@as2load.invalid>',
    'PhGiHACOWQZn/iJXNEaWme7nD+mduCE9/jsQWFdrd3g=',
    '7e1139bc8f609397ecb163c2770b1c5feea2249bffa10d6e7a307d796d420228',
  ],
  [
    'signed-2.http',
    '<as2load-pss-signed-000002@as2load.invalid>',
    'VE6zA22VDAnb2X7ImGYFkzWpDLg8sqWFF1VYEjnXRXY=',
    'c920be33e5b38aa0011bc1d75dd008297aaeb8c9e3ad50ba8aa9cd2cbda24efa',
  ],
  [
    'signed-encrypted-compressed.http',
    '<as2load-pss-full-000001@as2load.invalid>',
    '32kwHJCuZGeMSBrNKrXY+eBvAqBJyfONFLY1qcG+WyQ=',
    // Not the README's ec24ad71…: that matches nothing this request carries. This is the SHA-256
    // of the document inside, found without pier (`openssl cms -decrypt`, then Python's zlib
    // on the CompressedData); see SOURCE.md.
    '862d2e21c3458ff80474fc88da49e970ac5beddc335960ca5b8c24c487245163',
  ],
] as const;

/** A captured request: header lines (CRLF), a blank line, then the body. */
function parseCapture(bytes: Buffer): { headers: Record<string, string>; body: Buffer } {
  const end = bytes.indexOf('\r\n\r\n');
  const headers: Record<string, string> = {};
  for (const line of bytes.subarray(0, end).toString('latin1').split('\r\n')) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon)] = line.slice(colon + 1).trim();
  }
  return { headers, body: bytes.subarray(end + 4) };
}

const server = await startTestServer(t);
const fixtures = makeFixtures(t);
writeFixture(fixtures, 'receiver.crt', read('certificates/receiver.cert.pem'));

async function store(certificate: string, description: string, key?: string): Promise<number> {
  const answer = await uploadCertificate(server, {
    certificate: read(certificate),
    ...(key ? { private_key: read(key) } : {}),
    description,
  });
  if (answer.status !== 201) throw new Error(`upload of ${certificate} failed: ${answer.raw}`);
  return answer.body.data.id as number;
}

const receiverCert = await store('certificates/receiver.cert.pem', 'pier', 'certificates/receiver.key.pem');
const senderCert = await store('certificates/sender.cert.pem', 'pyas2');
const url = await startReceiver(server);
await organization(server, 'pier', 'PIER', receiverCert);
await partner(
  server,
  'pyas2',
  'PYAS2',
  'http://127.0.0.1:9/as2',
  senderCert,
  {
    signing_algorithm: 'sha256',
    encryption_algorithm: 'aes256-cbc',
    compression: false,
    mdn_mode: 'sync',
    mdn_signed: true,
  },
  // Two of the captures are signed only: the partner must sign, encrypting is its choice.
  { inbound_signature: 'required', inbound_encryption: 'optional' },
);

async function post(request: { headers: Record<string, string>; body: Buffer }) {
  const answer = await fetch(url, {
    method: 'POST',
    headers: request.headers,
    body: new Uint8Array(request.body),
  });
  return { answer, body: Buffer.from(await answer.arrayBuffer()) };
}

async function inbound(id: string): Promise<Message> {
  const list = await server.call('GET', '/api/v1/messages?limit=100');
  return (list.body.data.messages as Message[]).find((m) => m.protocols.as2?.message_id === id);
}

for (const [file, messageId, mic, payloadSha256] of captures) {
  t.test(`${file}: processed with the expected MIC and payload`, async (t) => {
    const { answer, body } = await post(parseCapture(read(file)));
    t.equal(answer.status, 200);
    // The receipt, checked by openssl against the receiver's certificate.
    const name = `${file}.mdn`;
    writeFixture(fixtures, name, asMessage({ 'Content-Type': answer.headers.get('content-type')! }, body));
    fixtures.openssl(`cms -verify -in ${name} -CAfile receiver.crt -purpose any -out ${name}.txt`);
    const report = fixtures.read(`${name}.txt`).toString('latin1');
    t.match(report, /Disposition: automatic-action\/MDN-sent-automatically; processed\r?\n/);
    t.match(report, `Received-Content-MIC: ${mic}, sha256`);

    const stored = await inbound(messageId);
    t.equal(stored.refusal, null);
    // Stored under pier's canonical name; the receipt above echoes the partner's spelling.
    t.equal(stored.protocols.as2.mic, `${mic}, sha-256`);
    t.match(stored.protocols.as2.signature, {
      algorithm: 'sha-256',
      scheme: 'rsa-pss',
      leniency: /and the 222-byte salt the signature carries/,
    });
    const download = await server.app.inject({
      url: `/api/v1/messages/${stored.id}/payload?stage=unpacked`,
      headers: { authorization: `Bearer ${server.token}` },
    });
    t.equal(download.statusCode, 200);
    t.equal(createHash('sha256').update(download.rawPayload).digest('hex'), payloadSha256);
  });
}

t.test('a tampered copy of a capture is refused as integrity-check-failed', async (t) => {
  const request = parseCapture(read('signed-1.http'));
  const messageId = '<as2load-pss-tampered@as2load.invalid>';
  request.headers['Message-ID'] = messageId;
  // One byte of the signed payload changed: the signature no longer covers it under any reading.
  const at = request.body.indexOf('K55NG5T');
  t.ok(at > 0, 'the payload was found');
  const body = Buffer.from(request.body);
  body[at] = 'J'.charCodeAt(0);
  const { answer, body: receipt } = await post({ headers: request.headers, body });
  t.equal(answer.status, 200);
  t.match(receipt.toString('latin1'), 'processed/Error: integrity-check-failed');
  const stored = await inbound(messageId);
  t.match(stored.refusal, 'integrity-check-failed');
});
