// Covers large AS2 messages (1 MiB and more), which the receiver stores as they arrive and
// moves to its worker pool rather than copying: over real HTTP, a 3 MiB signed and encrypted document is
// processed with the right MIC in the receipt and stored byte for byte; a tampered one and one
// encrypted for another certificate are refused with the right disposition, like small ones.
import { createHash, randomBytes } from 'node:crypto';
import t from 'tap';
import { packOutgoing, parseMdn } from '../../actors/as2/index.js';
import { handPackedToItself, messageByAs2Id, postAs2 } from '../helpers/as2.js';
import { startTestServer } from '../helpers/server.js';
import { limits } from '../../limits/limits.js';

const server = await startTestServer(t);
const { url, pierCert, pierKey, otherCert } = await handPackedToItself(t, server);
// Random bytes do not compress: the body stays above the pool's threshold.
const document = randomBytes(3 * 1024 * 1024);

function large(id: string, encryptTo = pierCert) {
  const packed = packOutgoing(document, {
    filename: 'catalogue.bin',
    sign: { algorithm: 'sha-256', certificate: pierCert, privateKey: pierKey },
    encrypt: { algorithm: 'aes256-cbc', certificate: encryptTo },
  });
  return { packed, headers: { ...packed.headers, 'Message-ID': id } };
}

const post = (body: Buffer, headers: Record<string, string>) => postAs2(url, body, headers);

const stored = (as2Id: string) => messageByAs2Id(server, as2Id);

t.test('a large message is processed in the pool: MIC and document as sent', async (t) => {
  const { packed, headers } = large('<large-1@test>');
  t.ok(packed.body.length >= limits.largeBodyFromBytes, 'the body is large enough for the pool');
  const answer = await post(Buffer.concat(packed.bodyChunks), headers);
  t.equal(answer.status, 200);
  const mdn = parseMdn(answer.body, answer.headers, { verificationCerts: [pierCert] });
  t.match(mdn.fields.get('disposition'), /processed$/);
  t.equal(mdn.mic?.digest.toString('base64'), packed.mic.digest.toString('base64'), 'the MIC');
  const message = await stored('<large-1@test>');
  t.equal(message.payloads.unpacked?.size_bytes, document.length);
  t.equal(message.file_name, 'catalogue.bin');
  const download = await server.app.inject({
    url: `/api/v1/messages/${message.id}/payload?stage=unpacked`,
    headers: { authorization: `Bearer ${server.token}` },
  });
  const bytes = download.rawPayload;
  t.equal(
    createHash('sha256').update(bytes).digest('hex'),
    createHash('sha256').update(document).digest('hex'),
  );
  t.equal(message.protocols.as2?.signed, true);
  t.equal(message.protocols.as2?.encryption?.algorithm, 'aes256-cbc');
});

t.test('large and tampered: integrity-check-failed, Refused', async (t) => {
  // Signed, not encrypted, so the flipped byte reaches the signature check.
  const unencrypted = packOutgoing(document, {
    filename: 'catalogue.bin',
    sign: { algorithm: 'sha-256', certificate: pierCert, privateKey: pierKey },
  });
  const body = Buffer.concat(unencrypted.bodyChunks);
  const at = body.indexOf(document.subarray(1000, 1016));
  body[at] = body[at]! ^ 0xff;
  t.ok(body.length >= limits.largeBodyFromBytes);
  const answer = await post(body, { ...unencrypted.headers, 'Message-ID': '<large-2@test>' });
  const mdn = parseMdn(answer.body, answer.headers, { verificationCerts: [pierCert] });
  t.match(mdn.fields.get('disposition'), /processed\/error: integrity-check-failed$/i);
  t.equal((await stored('<large-2@test>')).status, 'Refused');
});

t.test('large and encrypted for another certificate: decryption-failed, Refused', async (t) => {
  const { packed, headers } = large('<large-3@test>', otherCert);
  const answer = await post(Buffer.concat(packed.bodyChunks), headers);
  const mdn = parseMdn(answer.body, answer.headers, { verificationCerts: [pierCert] });
  t.match(mdn.fields.get('disposition'), /processed\/error: decryption-failed$/i);
  t.equal((await stored('<large-3@test>')).status, 'Refused');
});
