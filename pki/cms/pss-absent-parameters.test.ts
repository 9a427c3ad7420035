// Covers verifying RSASSA-PSS SignerInfos written with the parameters absent (as pyas2lib writes them), built by hand with node:crypto and DER written in the test: RFC 4055's SHA-1 defaults are tried first, then the SignerInfo's digest with MGF1 and the salt length read from the signature (pyas2lib's maximum, the digest's length, none), which is reported as lenient; a signature that verifies under neither reading is refused.
import { createPrivateKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import t from 'tap';
import { makeFixtures } from '../../test/helpers/certificates.js';
import { handSignedPss, oid, testOids, tlv } from '../../test/helpers/hand-cms.js';
import { CmsError } from './cms-error.js';
import { verifyDetached } from './signed-data.js';

const fixtures = makeFixtures();
t.teardown(() => fixtures.remove());
fixtures.openssl(
  'req -x509 -newkey rsa:2048 -nodes -keyout a.key -out a.crt -days 30 -subj',
  '/CN=pss.example',
);
const certificate = new X509Certificate(fixtures.read('a.crt'));
const key = createPrivateKey(fixtures.read('a.key'));
const content = Buffer.from('Content-Type: application/edi-x12\r\n\r\nISA*00~\r\n');

t.test(
  'SHA-256 PSS with absent parameters verifies under the liberal reading, reported as such',
  async (t) => {
    for (const [hash, salt, name] of [
      ['sha256', 32, 'sha-256'],
      ['sha384', 48, 'sha-384'],
      ['sha512', 64, 'sha-512'],
    ] as const) {
      const der = handSignedPss(content, { certificate, key, hash, saltLength: salt });
      const verified = verifyDetached(der, [content], [certificate]);
      t.equal(verified.digestAlgorithm, name);
      t.equal(verified.lenientPss, true, `${hash}: lenient`);
      t.match(verified.signatureAlgorithm.pss, { hash: name, mgfHash: name, saltLength: salt });
    }
  },
);

t.test('SHA-1 PSS with absent parameters is the RFC defaults: verified, not lenient', async (t) => {
  const der = handSignedPss(content, { certificate, key, hash: 'sha1', saltLength: 20 });
  const verified = verifyDetached(der, [content], [certificate]);
  t.equal(verified.lenientPss, false);
  t.match(verified.signatureAlgorithm.pss, { hash: 'sha-1', saltLength: 20 });
});

t.test('explicit parameters are taken as written: no liberal reading', async (t) => {
  // SHA-256 hash written explicitly, MGF1 and salt left at the SHA-1 defaults: the signature
  // (made with SHA-256 MGF1 and salt 32) verifies under no reading of what is written.
  const parameters = tlv(0x30, tlv(0xa0, tlv(0x30, oid(testOids.sha256))));
  const der = handSignedPss(content, {
    certificate,
    key,
    hash: 'sha256',
    saltLength: 32,
    pssParameters: parameters,
  });
  t.equal(
    failureOf(() => verifyDetached(der, [content], [certificate])),
    'integrity-check-failed',
  );
});

/** The CmsError failure `fn` throws, or null when it does not throw. */
function failureOf(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (error) {
    return error instanceof CmsError ? error.failure : `not a CmsError: ${String(error)}`;
  }
}

t.test('the salt length is read from the signature, whatever it is', async (t) => {
  // RSA-2048: the encoded message is 256 bytes, so the largest salt is 256 - hLen - 2.
  for (const [hash, salt, name] of [
    ['sha256', 222, 'sha-256'],
    ['sha256', 20, 'sha-256'],
    ['sha256', 0, 'sha-256'],
    ['sha512', 190, 'sha-512'],
    ['sha1', 234, 'sha-1'],
  ] as const) {
    const der = handSignedPss(content, { certificate, key, hash, saltLength: salt });
    const verified = verifyDetached(der, [content], [certificate]);
    t.equal(verified.lenientPss, true, `${hash} salt ${salt}: lenient`);
    t.match(verified.signatureAlgorithm.pss, { hash: name, mgfHash: name, saltLength: salt });
  }
});

t.test('a signature that verifies under no reading is refused', async (t) => {
  const maximum = handSignedPss(content, { certificate, key, hash: 'sha256', saltLength: 222 });
  t.equal(
    failureOf(() => verifyDetached(maximum, [Buffer.concat([content, Buffer.from('x')])], [certificate])),
    'integrity-check-failed',
    'altered content',
  );
  // Made by another key under this certificate's name: its encoding reads as nothing.
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const stranger = handSignedPss(content, { certificate, key: other, hash: 'sha256', saltLength: 222 });
  t.equal(
    failureOf(() => verifyDetached(stranger, [content], [certificate])),
    'integrity-check-failed',
    'another key',
  );
});
