// Covers the zlib stream of a large CompressedData made part by part (no joined copy of the
// entity): it inflates to exactly the joined parts with a correct Adler-32 (node:zlib checks
// it), is no larger than deflating the joined bytes, and a large compressed, signed and
// encrypted message packs and unpacks to the same document with the same MIC.
import { createHash, randomBytes } from 'node:crypto';
import { deflateSync, inflateSync } from 'node:zlib';
import t from 'tap';
import { makeParties } from '../../test/as2/parties.js';
import { packOutgoing } from '../../actors/as2/pack.js';
import { unpackIncoming } from '../../actors/as2/unpack.js';
import { CmsError } from './cms-error.js';
import { compress, decompress, deflateParts } from './compressed-data.js';

const header = Buffer.from('Content-Type: application/edi-x12\r\nContent-Transfer-Encoding: binary\r\n\r\n');
const text = Buffer.alloc(3 * 1024 * 1024, 'ISA*00*          *00*          *ZZ*ACME~\n');
const noise = randomBytes(1024 * 1024 + 7);

t.test('large parts deflate to one valid zlib stream of the joined bytes', async (t) => {
  const parts = [header, text, noise];
  const joined = Buffer.concat(parts);
  const stream = deflateParts(parts);
  t.ok(inflateSync(stream).equals(joined), 'inflates to the joined parts (Adler-32 checked by zlib)');
  t.ok(stream.length <= deflateSync(joined).length + 64, 'compresses as well as the joined bytes');
  const flipped = Buffer.from(stream);
  flipped[flipped.length - 1] = flipped[flipped.length - 1]! ^ 1;
  t.throws(() => inflateSync(flipped), 'a wrong checksum is caught');
});

t.test('small parts are joined and deflated as before', async (t) => {
  const parts = [header, Buffer.from('UNB+UNOC:3~')];
  t.same(deflateParts(parts), deflateSync(Buffer.concat(parts)));
});

t.test('a large compressed, signed, encrypted message round trips', async (t) => {
  const { alice, bob, remove } = makeParties();
  t.teardown(remove);
  const document = Buffer.concat([text, noise]);
  const packed = packOutgoing(document, {
    filename: 'big.x12',
    compress: 'before-sign',
    sign: { algorithm: 'sha-256', certificate: alice.certificate, privateKey: alice.privateKey },
    encrypt: { algorithm: 'aes256-cbc', certificate: bob.certificate },
  });
  const unpacked = unpackIncoming(Buffer.concat(packed.bodyChunks), packed.headers, {
    decryptionKeys: [bob],
    verificationCerts: [alice.certificate],
  });
  t.equal(
    createHash('sha256').update(unpacked.payload).digest('hex'),
    createHash('sha256').update(document).digest('hex'),
    'the document as sent',
  );
  t.equal(unpacked.mic.digest.toString('base64'), packed.mic.digest.toString('base64'), 'the same MIC');
  t.equal(unpacked.compression, 'before-sign');
});

t.test('a large input inflating past the limit is refused, whatever the output chunk', async (t) => {
  const der = compress([Buffer.concat([noise, text])]);
  t.ok(der.length >= 64 * 1024, 'large enough for one big output chunk');
  t.equal(decompress(der, { maxBytes: 8 * 1024 * 1024 }).length, noise.length + text.length);
  try {
    decompress(der, { maxBytes: 2 * 1024 * 1024 });
    t.fail('inflated past the limit');
  } catch (error) {
    t.ok(error instanceof CmsError, 'a CmsError');
    t.equal((error as CmsError).failure, 'decompression-failed');
  }
});
