// Covers unpackIncoming's keepInnermostCompressed: the zlib stream of the innermost CompressedData is
// answered with where the document starts in what it inflates to, so the payload store can keep the
// document as its partner compressed it (open-message.ts), and only when that stream holds the
// document as it stands: not when the document had a transfer encoding undone, nor when a layer
// (a signature) sits inside the compression, nor when nothing was compressed.
import { inflateSync } from 'node:zlib';
import t from 'tap';
import { packOutgoing, type PackOptions } from '../../actors/as2/pack.js';
import { unpackIncoming } from '../../actors/as2/unpack.js';
import { makeParties } from './parties.js';

const parties = makeParties();
t.teardown(() => parties.remove());
const { alice, bob } = parties;

const document = Buffer.from('ISA*00*~\r\nGS*PO*A*B~\n'.repeat(5000));
const sign = { algorithm: 'sha-256' as const, certificate: alice.certificate, privateKey: alice.privateKey };
const encrypt = { algorithm: 'aes256-cbc' as const, certificate: bob.certificate };

function unpacked(options: Partial<PackOptions>) {
  const packed = packOutgoing(document, {
    contentType: 'application/edi-x12',
    filename: 'po.edi',
    compress: 'off',
    sign: null,
    encrypt: null,
    ...options,
  });
  return unpackIncoming(packed.body, packed.headers, {
    decryptionKeys: [bob],
    verificationCerts: [alice.certificate],
    keepInnermostCompressed: true,
  });
}

for (const layers of [
  { sign, encrypt },
  { sign: null, encrypt: null },
]) {
  const label = layers.sign ? 'signed and encrypted' : 'alone';
  t.test(`compressed before signing, ${label}: the stream inflates to the document`, async (t) => {
    const got = unpacked({ compress: 'before-sign', ...layers });
    t.ok(got.payload.equals(document), 'the payload is the document');
    const kept = got.compressedDocument;
    if (!kept) return t.fail('no compressed document answered');
    const inflated = inflateSync(Buffer.concat(kept.chunks));
    t.equal(kept.size, document.length, 'its size is the document’s');
    t.ok(inflated.subarray(kept.skip).equals(document), 'the inflated stream past `skip` is the document');
    t.match(inflated.subarray(0, kept.skip).toString('latin1'), /Content-Type: application\/edi-x12/i);
    t.ok(kept.chunks.reduce((n, c) => n + c.length, 0) < document.length / 10, 'the stream is small');
  });
}

t.test('none when the signature sits inside the compression (compressed after signing)', async (t) => {
  const got = unpacked({ compress: 'after-sign', sign, encrypt });
  t.ok(got.payload.equals(document), 'the payload is the document');
  t.equal(got.compressedDocument, undefined, 'the stream inflates to the signed entity, not the document');
});

t.test('none when the compressed document had a transfer encoding undone', async (t) => {
  const got = unpacked({ compress: 'before-sign', sign, encrypt, transferEncoding: 'base64' });
  t.ok(got.payload.equals(document), 'the payload is the document');
  t.equal(got.compressedDocument, undefined, 'the stream holds base64, not the document');
});

t.test('none when nothing was compressed, or when not asked', async (t) => {
  t.equal(unpacked({ sign, encrypt }).compressedDocument, undefined, 'not compressed');
  const packed = packOutgoing(document, {
    contentType: 'application/edi-x12',
    filename: 'po.edi',
    compress: 'after-sign',
    sign,
    encrypt,
  });
  const got = unpackIncoming(packed.body, packed.headers, {
    decryptionKeys: [bob],
    verificationCerts: [alice.certificate],
  });
  t.equal(got.compressedDocument, undefined, 'not asked');
});
