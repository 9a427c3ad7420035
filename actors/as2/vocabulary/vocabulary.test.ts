// Covers the AS2 vocabulary tables: CMS OIDs against the RFCs' ASN.1 modules and OpenSSL's names, MIC algorithm spellings, dispositions against RFC 4130/8098 text, and DispositionError.
import { execFileSync } from 'node:child_process';
import t from 'tap';
import { DispositionError, failingAs } from './disposition-error.js';
import {
  errorModifiers,
  formatDisposition,
  isSuccessful,
  parseDisposition,
  processed,
  processedWithError,
  failedWithFailure,
  DispositionSyntaxError,
} from './dispositions.js';
import {
  contentEncryptionAlgorithms,
  contentEncryptionForOid,
} from '../../../pki/algorithms/encryption-algorithms.js';
import {
  micAlgorithmName,
  micAlgorithmNames,
  micAlgorithms,
  parseMicAlgorithm,
  micAlgorithmForDigestOid,
} from '../../../pki/algorithms/mic-algorithms.js';
import { oids, oidName, type OidName } from '../../../pki/oids.js';

// The assignments as the RFCs' ASN.1 modules write them (RFC 5652 §12, RFC 3274 §4, RFC 5083
// §6, RFC 6211 §2, RFC 3370 / RFC 5754, RFC 8017 App. C, RFC 3565 §4, RFC 5084 §3, RFC 8551 §2.5.2,
// RFC 5280 §4.2.1.2, RFC 8702 §2-3 and NIST's registry for SHA-3, RFC 5480 §2.1.1 and RFC 5758 §3.2 for
// ECDSA). Symbols defined earlier in the list may be used by later lines.
const asn1Module = `
pkcs-1 OBJECT IDENTIFIER ::= { iso(1) member-body(2) us(840) rsadsi(113549) pkcs(1) 1 }
aes OBJECT IDENTIFIER ::= { joint-iso-itu-t(2) country(16) us(840) organization(1) gov(101) csor(3) nistAlgorithms(4) 1 }
id-ce OBJECT IDENTIFIER ::= { joint-iso-ccitt(2) ds(5) 29 }
id-data OBJECT IDENTIFIER ::= { iso(1) member-body(2) us(840) rsadsi(113549) pkcs(1) pkcs7(7) 1 }
id-signedData OBJECT IDENTIFIER ::= { iso(1) member-body(2) us(840) rsadsi(113549) pkcs(1) pkcs7(7) 2 }
id-envelopedData OBJECT IDENTIFIER ::= { iso(1) member-body(2) us(840) rsadsi(113549) pkcs(1) pkcs7(7) 3 }
id-ct-compressedData OBJECT IDENTIFIER ::= { iso(1) member-body(2) us(840) rsadsi(113549) pkcs(1) pkcs-9(9) smime(16) ct(1) 9 }
id-ct-authEnvelopedData OBJECT IDENTIFIER ::= { iso(1) member-body(2) us(840) rsadsi(113549) pkcs(1) pkcs9(9) smime(16) ct(1) 23 }
id-contentType OBJECT IDENTIFIER ::= { iso(1) member-body(2) us(840) rsadsi(113549) pkcs(1) pkcs9(9) 3 }
id-messageDigest OBJECT IDENTIFIER ::= { iso(1) member-body(2) us(840) rsadsi(113549) pkcs(1) pkcs9(9) 4 }
id-signingTime OBJECT IDENTIFIER ::= { iso(1) member-body(2) us(840) rsadsi(113549) pkcs(1) pkcs9(9) 5 }
smimeCapabilities OBJECT IDENTIFIER ::= { iso(1) member-body(2) us(840) rsadsi(113549) pkcs(1) pkcs-9(9) 15 }
id-aa-CMSAlgorithmProtection OBJECT IDENTIFIER ::= { iso(1) member-body(2) us(840) rsadsi(113549) pkcs(1) pkcs9(9) 52 }
md5 OBJECT IDENTIFIER ::= { iso(1) member-body(2) us(840) rsadsi(113549) digestAlgorithm(2) 5 }
id-sha1 OBJECT IDENTIFIER ::= { iso(1) identified-organization(3) oiw(14) secsig(3) algorithms(2) 26 }
id-sha224 OBJECT IDENTIFIER ::= { joint-iso-itu-t(2) country(16) us(840) organization(1) gov(101) csor(3) nistalgorithm(4) hashalgs(2) 4 }
id-sha256 OBJECT IDENTIFIER ::= { joint-iso-itu-t(2) country(16) us(840) organization(1) gov(101) csor(3) nistalgorithm(4) hashalgs(2) 1 }
id-sha384 OBJECT IDENTIFIER ::= { joint-iso-itu-t(2) country(16) us(840) organization(1) gov(101) csor(3) nistalgorithm(4) hashalgs(2) 2 }
id-sha512 OBJECT IDENTIFIER ::= { joint-iso-itu-t(2) country(16) us(840) organization(1) gov(101) csor(3) nistalgorithm(4) hashalgs(2) 3 }
rsaEncryption OBJECT IDENTIFIER ::= { pkcs-1 1 }
md5WithRSAEncryption OBJECT IDENTIFIER ::= { pkcs-1 4 }
sha1WithRSAEncryption OBJECT IDENTIFIER ::= { pkcs-1 5 }
sha224WithRSAEncryption OBJECT IDENTIFIER ::= { pkcs-1 14 }
sha256WithRSAEncryption OBJECT IDENTIFIER ::= { pkcs-1 11 }
sha384WithRSAEncryption OBJECT IDENTIFIER ::= { pkcs-1 12 }
sha512WithRSAEncryption OBJECT IDENTIFIER ::= { pkcs-1 13 }
id-RSASSA-PSS OBJECT IDENTIFIER ::= { pkcs-1 10 }
id-RSAES-OAEP OBJECT IDENTIFIER ::= { pkcs-1 7 }
id-mgf1 OBJECT IDENTIFIER ::= { pkcs-1 8 }
id-pSpecified OBJECT IDENTIFIER ::= { pkcs-1 9 }
des-ede3-cbc OBJECT IDENTIFIER ::= { iso(1) member-body(2) us(840) rsadsi(113549) encryptionAlgorithm(3) 7 }
rc2-cbc OBJECT IDENTIFIER ::= { iso(1) member-body(2) us(840) rsadsi(113549) encryptionAlgorithm(3) 2 }
id-aes128-CBC OBJECT IDENTIFIER ::= { aes 2 }
id-aes192-CBC OBJECT IDENTIFIER ::= { aes 22 }
id-aes256-CBC OBJECT IDENTIFIER ::= { aes 42 }
id-aes128-GCM OBJECT IDENTIFIER ::= { aes 6 }
id-aes192-GCM OBJECT IDENTIFIER ::= { aes 26 }
id-aes256-GCM OBJECT IDENTIFIER ::= { aes 46 }
hashAlgs OBJECT IDENTIFIER ::= { joint-iso-itu-t(2) country(16) us(840) organization(1) gov(101) csor(3) nistAlgorithm(4) 2 }
sigAlgs OBJECT IDENTIFIER ::= { joint-iso-itu-t(2) country(16) us(840) organization(1) gov(101) csor(3) nistAlgorithm(4) 3 }
id-sha3-256 OBJECT IDENTIFIER ::= { hashAlgs 8 }
id-sha3-384 OBJECT IDENTIFIER ::= { hashAlgs 9 }
id-sha3-512 OBJECT IDENTIFIER ::= { hashAlgs 10 }
id-rsassa-pkcs1-v1-5-with-sha3-256 OBJECT IDENTIFIER ::= { sigAlgs 14 }
id-rsassa-pkcs1-v1-5-with-sha3-384 OBJECT IDENTIFIER ::= { sigAlgs 15 }
id-rsassa-pkcs1-v1-5-with-sha3-512 OBJECT IDENTIFIER ::= { sigAlgs 16 }
id-ecdsa-with-sha3-256 OBJECT IDENTIFIER ::= { sigAlgs 10 }
id-ecdsa-with-sha3-384 OBJECT IDENTIFIER ::= { sigAlgs 11 }
id-ecdsa-with-sha3-512 OBJECT IDENTIFIER ::= { sigAlgs 12 }
id-ecPublicKey OBJECT IDENTIFIER ::= { iso(1) member-body(2) us(840) ansi-X9-62(10045) keyType(2) 1 }
ecdsa-with-SHA1 OBJECT IDENTIFIER ::= { iso(1) member-body(2) us(840) ansi-X9-62(10045) signatures(4) 1 }
ecdsa-with-SHA224 OBJECT IDENTIFIER ::= { iso(1) member-body(2) us(840) ansi-X9-62(10045) signatures(4) ecdsa-with-SHA2(3) 1 }
ecdsa-with-SHA256 OBJECT IDENTIFIER ::= { iso(1) member-body(2) us(840) ansi-X9-62(10045) signatures(4) ecdsa-with-SHA2(3) 2 }
ecdsa-with-SHA384 OBJECT IDENTIFIER ::= { iso(1) member-body(2) us(840) ansi-X9-62(10045) signatures(4) ecdsa-with-SHA2(3) 3 }
ecdsa-with-SHA512 OBJECT IDENTIFIER ::= { iso(1) member-body(2) us(840) ansi-X9-62(10045) signatures(4) ecdsa-with-SHA2(3) 4 }
id-alg-zlibCompress OBJECT IDENTIFIER ::= { iso(1) member-body(2) us(840) rsadsi(113549) pkcs(1) pkcs-9(9) smime(16) alg(3) 8 }
id-ce-subjectKeyIdentifier OBJECT IDENTIFIER ::= { id-ce 14 }
x9-63-scheme OBJECT IDENTIFIER ::= { iso(1) identified-organization(3) tc68(133) country(16) x9(840) x9-63(63) schemes(0) }
secg-scheme OBJECT IDENTIFIER ::= { iso(1) identified-organization(3) certicom(132) schemes(1) }
dhSinglePass-stdDH-sha1kdf-scheme OBJECT IDENTIFIER ::= { x9-63-scheme 2 }
dhSinglePass-stdDH-sha224kdf-scheme OBJECT IDENTIFIER ::= { secg-scheme 11 0 }
dhSinglePass-stdDH-sha256kdf-scheme OBJECT IDENTIFIER ::= { secg-scheme 11 1 }
dhSinglePass-stdDH-sha384kdf-scheme OBJECT IDENTIFIER ::= { secg-scheme 11 2 }
dhSinglePass-stdDH-sha512kdf-scheme OBJECT IDENTIFIER ::= { secg-scheme 11 3 }
dhSinglePass-cofactorDH-sha1kdf-scheme OBJECT IDENTIFIER ::= { x9-63-scheme 3 }
dhSinglePass-cofactorDH-sha224kdf-scheme OBJECT IDENTIFIER ::= { secg-scheme 14 0 }
dhSinglePass-cofactorDH-sha256kdf-scheme OBJECT IDENTIFIER ::= { secg-scheme 14 1 }
dhSinglePass-cofactorDH-sha384kdf-scheme OBJECT IDENTIFIER ::= { secg-scheme 14 2 }
dhSinglePass-cofactorDH-sha512kdf-scheme OBJECT IDENTIFIER ::= { secg-scheme 14 3 }
mqvSinglePass-sha1kdf-scheme OBJECT IDENTIFIER ::= { x9-63-scheme 16 }
mqvSinglePass-sha224kdf-scheme OBJECT IDENTIFIER ::= { secg-scheme 15 0 }
mqvSinglePass-sha256kdf-scheme OBJECT IDENTIFIER ::= { secg-scheme 15 1 }
mqvSinglePass-sha384kdf-scheme OBJECT IDENTIFIER ::= { secg-scheme 15 2 }
mqvSinglePass-sha512kdf-scheme OBJECT IDENTIFIER ::= { secg-scheme 15 3 }
id-aes128-wrap OBJECT IDENTIFIER ::= { aes 5 }
id-aes192-wrap OBJECT IDENTIFIER ::= { aes 25 }
id-aes256-wrap OBJECT IDENTIFIER ::= { aes 45 }
id-alg-CMS3DESwrap OBJECT IDENTIFIER ::= { iso(1) member-body(2) us(840) rsadsi(113549) pkcs(1) pkcs-9(9) smime(16) alg(3) 6 }
`;

function resolveModule(text: string): Map<string, string> {
  const defined = new Map<string, string>();
  for (const line of text.trim().split('\n')) {
    const [, name, body] = /^(\S+) OBJECT IDENTIFIER ::= \{ (.*) \}$/.exec(line)!;
    const arcs = body!.split(/\s+/).map((token) => {
      const numbered = /\((\d+)\)$/.exec(token) ?? /^(\d+)$/.exec(token);
      if (numbered) return numbered[1]!;
      const symbol = defined.get(token);
      if (!symbol) throw new Error(`unknown symbol ${token}`);
      return symbol;
    });
    defined.set(name!, arcs.join('.'));
  }
  return defined;
}

// pier's name → [RFC module name, OpenSSL's short or long name].
const expected: Record<OidName, [string, string]> = {
  data: ['id-data', 'pkcs7-data'],
  signedData: ['id-signedData', 'pkcs7-signedData'],
  envelopedData: ['id-envelopedData', 'pkcs7-envelopedData'],
  compressedData: ['id-ct-compressedData', 'id-smime-ct-compressedData'],
  authEnvelopedData: ['id-ct-authEnvelopedData', 'id-smime-ct-authEnvelopedData'],
  contentType: ['id-contentType', 'contentType'],
  messageDigest: ['id-messageDigest', 'messageDigest'],
  signingTime: ['id-signingTime', 'signingTime'],
  smimeCapabilities: ['smimeCapabilities', 'S/MIME Capabilities'],
  // OpenSSL 3.0 has no name for it and prints the number.
  cmsAlgorithmProtection: ['id-aa-CMSAlgorithmProtection', '1.2.840.113549.1.9.52'],
  md5: ['md5', 'md5'],
  sha1: ['id-sha1', 'sha1'],
  sha224: ['id-sha224', 'sha224'],
  sha256: ['id-sha256', 'sha256'],
  sha384: ['id-sha384', 'sha384'],
  sha512: ['id-sha512', 'sha512'],
  rsaEncryption: ['rsaEncryption', 'rsaEncryption'],
  md5WithRSAEncryption: ['md5WithRSAEncryption', 'md5WithRSAEncryption'],
  sha1WithRSAEncryption: ['sha1WithRSAEncryption', 'sha1WithRSAEncryption'],
  sha224WithRSAEncryption: ['sha224WithRSAEncryption', 'sha224WithRSAEncryption'],
  sha256WithRSAEncryption: ['sha256WithRSAEncryption', 'sha256WithRSAEncryption'],
  sha384WithRSAEncryption: ['sha384WithRSAEncryption', 'sha384WithRSAEncryption'],
  sha512WithRSAEncryption: ['sha512WithRSAEncryption', 'sha512WithRSAEncryption'],
  rsassaPss: ['id-RSASSA-PSS', 'rsassaPss'],
  rsaesOaep: ['id-RSAES-OAEP', 'rsaesOaep'],
  mgf1: ['id-mgf1', 'mgf1'],
  pSpecified: ['id-pSpecified', 'pSpecified'],
  desEde3Cbc: ['des-ede3-cbc', 'des-ede3-cbc'],
  rc2Cbc: ['rc2-cbc', 'rc2-cbc'],
  aes128Cbc: ['id-aes128-CBC', 'aes-128-cbc'],
  aes192Cbc: ['id-aes192-CBC', 'aes-192-cbc'],
  aes256Cbc: ['id-aes256-CBC', 'aes-256-cbc'],
  aes128Gcm: ['id-aes128-GCM', 'aes-128-gcm'],
  aes192Gcm: ['id-aes192-GCM', 'aes-192-gcm'],
  aes256Gcm: ['id-aes256-GCM', 'aes-256-gcm'],
  zlibCompress: ['id-alg-zlibCompress', 'zlib compression'],
  sha3_256: ['id-sha3-256', 'sha3-256'],
  sha3_384: ['id-sha3-384', 'sha3-384'],
  sha3_512: ['id-sha3-512', 'sha3-512'],
  rsaWithSha3_256: ['id-rsassa-pkcs1-v1-5-with-sha3-256', 'RSA-SHA3-256'],
  rsaWithSha3_384: ['id-rsassa-pkcs1-v1-5-with-sha3-384', 'RSA-SHA3-384'],
  rsaWithSha3_512: ['id-rsassa-pkcs1-v1-5-with-sha3-512', 'RSA-SHA3-512'],
  ecdsaWithSha3_256: ['id-ecdsa-with-sha3-256', 'ecdsa_with_SHA3-256'],
  ecdsaWithSha3_384: ['id-ecdsa-with-sha3-384', 'ecdsa_with_SHA3-384'],
  ecdsaWithSha3_512: ['id-ecdsa-with-sha3-512', 'ecdsa_with_SHA3-512'],
  ecPublicKey: ['id-ecPublicKey', 'id-ecPublicKey'],
  ecdsaWithSha1: ['ecdsa-with-SHA1', 'ecdsa-with-SHA1'],
  ecdsaWithSha224: ['ecdsa-with-SHA224', 'ecdsa-with-SHA224'],
  ecdsaWithSha256: ['ecdsa-with-SHA256', 'ecdsa-with-SHA256'],
  ecdsaWithSha384: ['ecdsa-with-SHA384', 'ecdsa-with-SHA384'],
  ecdsaWithSha512: ['ecdsa-with-SHA512', 'ecdsa-with-SHA512'],
  subjectKeyIdentifier: ['id-ce-subjectKeyIdentifier', 'X509v3 Subject Key Identifier'],
  dhSinglePassStdDhSha1Kdf: ['dhSinglePass-stdDH-sha1kdf-scheme', 'dhSinglePass-stdDH-sha1kdf-scheme'],
  dhSinglePassStdDhSha224Kdf: ['dhSinglePass-stdDH-sha224kdf-scheme', 'dhSinglePass-stdDH-sha224kdf-scheme'],
  dhSinglePassStdDhSha256Kdf: ['dhSinglePass-stdDH-sha256kdf-scheme', 'dhSinglePass-stdDH-sha256kdf-scheme'],
  dhSinglePassStdDhSha384Kdf: ['dhSinglePass-stdDH-sha384kdf-scheme', 'dhSinglePass-stdDH-sha384kdf-scheme'],
  dhSinglePassStdDhSha512Kdf: ['dhSinglePass-stdDH-sha512kdf-scheme', 'dhSinglePass-stdDH-sha512kdf-scheme'],
  dhSinglePassCofactorDhSha1Kdf: [
    'dhSinglePass-cofactorDH-sha1kdf-scheme',
    'dhSinglePass-cofactorDH-sha1kdf-scheme',
  ],
  dhSinglePassCofactorDhSha224Kdf: [
    'dhSinglePass-cofactorDH-sha224kdf-scheme',
    'dhSinglePass-cofactorDH-sha224kdf-scheme',
  ],
  dhSinglePassCofactorDhSha256Kdf: [
    'dhSinglePass-cofactorDH-sha256kdf-scheme',
    'dhSinglePass-cofactorDH-sha256kdf-scheme',
  ],
  dhSinglePassCofactorDhSha384Kdf: [
    'dhSinglePass-cofactorDH-sha384kdf-scheme',
    'dhSinglePass-cofactorDH-sha384kdf-scheme',
  ],
  dhSinglePassCofactorDhSha512Kdf: [
    'dhSinglePass-cofactorDH-sha512kdf-scheme',
    'dhSinglePass-cofactorDH-sha512kdf-scheme',
  ],
  // OpenSSL has no names for the ECMQV schemes: it prints the dotted OID.
  mqvSinglePassSha1Kdf: ['mqvSinglePass-sha1kdf-scheme', '1.3.133.16.840.63.0.16'],
  mqvSinglePassSha224Kdf: ['mqvSinglePass-sha224kdf-scheme', '1.3.132.1.15.0'],
  mqvSinglePassSha256Kdf: ['mqvSinglePass-sha256kdf-scheme', '1.3.132.1.15.1'],
  mqvSinglePassSha384Kdf: ['mqvSinglePass-sha384kdf-scheme', '1.3.132.1.15.2'],
  mqvSinglePassSha512Kdf: ['mqvSinglePass-sha512kdf-scheme', '1.3.132.1.15.3'],
  aes128Wrap: ['id-aes128-wrap', 'id-aes128-wrap'],
  aes192Wrap: ['id-aes192-wrap', 'id-aes192-wrap'],
  aes256Wrap: ['id-aes256-wrap', 'id-aes256-wrap'],
  cms3DesWrap: ['id-alg-CMS3DESwrap', 'id-smime-alg-CMS3DESwrap'],
};

t.test('every OID equals the RFC ASN.1 module assignment', async (t) => {
  const module = resolveModule(asn1Module);
  for (const [name, [rfcName]] of Object.entries(expected)) {
    t.equal(oids[name as OidName], module.get(rfcName), `${name} = ${rfcName}`);
  }
  t.same(Object.keys(oids).sort(), Object.keys(expected).sort(), 'the test covers the whole table');
  t.equal(oidName(oids.sha256), 'sha256');
  t.equal(oidName('1.2.3.4'), '1.2.3.4');
});

t.test('OpenSSL names every OID as expected', async (t) => {
  for (const [name, [, opensslName]] of Object.entries(expected)) {
    const out = execFileSync('openssl', ['asn1parse', '-genstr', `OID:${oids[name as OidName]}`]).toString();
    t.equal(out.trim().split(':').pop(), opensslName, name);
  }
});

t.test('MIC algorithms: every spelling partners use maps to one name', async (t) => {
  const spellings: Record<string, string> = {
    sha1: 'sha-1',
    'sha-1': 'sha-1',
    SHA1: 'sha-1',
    'SHA-1': 'sha-1',
    sha_1: 'sha-1',
    sha256: 'sha-256',
    'sha-256': 'sha-256',
    sha_256: 'sha-256',
    SHA256: 'sha-256',
    'SHA-256': 'sha-256',
    ' "sha-256" ': 'sha-256',
    sha224: 'sha-224',
    'sha-384': 'sha-384',
    SHA_512: 'sha-512',
    md5: 'md5',
    MD5: 'md5',
    'sha3-256': 'sha3-256',
    SHA3_256: 'sha3-256',
    'SHA3-384': 'sha3-384',
    sha3512: 'sha3-512',
  };
  for (const [spelling, name] of Object.entries(spellings))
    t.equal(parseMicAlgorithm(spelling), name, spelling);
  t.equal(parseMicAlgorithm('sha3-224'), null);
  t.equal(micAlgorithmName('sha3-256', 'rfc3851'), 'sha3-256');
  t.equal(parseMicAlgorithm(''), null);
  t.equal(micAlgorithmName('sha-256'), 'sha-256');
  t.equal(micAlgorithmName('sha-256', 'rfc3851'), 'sha256');
  t.equal(micAlgorithmName('sha-1', 'rfc3851'), 'sha1');
  for (const name of micAlgorithmNames) {
    const spec = micAlgorithms[name];
    t.equal(micAlgorithmForDigestOid(spec.digestOid), name);
    // The node:crypto hash exists and yields the advertised digest size.
    const { createHash } = await import('node:crypto');
    t.equal(createHash(spec.nodeHash).update('x').digest().length, spec.digestBytes, `${name} size`);
  }
});

t.test('content encryption table: OIDs and node:crypto ciphers agree', async (t) => {
  const { getCipherInfo } = await import('node:crypto');
  for (const [name, spec] of Object.entries(contentEncryptionAlgorithms)) {
    const info = getCipherInfo(spec.cipher);
    t.ok(info, `${spec.cipher} is known to node:crypto`);
    t.equal(info!.keyLength, spec.keyBytes, `${name} key length`);
    t.equal(contentEncryptionForOid(spec.oid), name);
  }
  t.equal(contentEncryptionForOid(oids.rc2Cbc), 'rc2-cbc');
  t.equal(contentEncryptionForOid(oids.sha1), null);
});

t.test('dispositions: the RFC 4130 examples and the captured MDNs read and write back', async (t) => {
  // RFC 4130 §7.5.3 / §7.4.3 and the Mendelson MDNs in the vectors.
  const texts = [
    'automatic-action/MDN-sent-automatically; processed',
    'automatic-action/MDN-sent-automatically; processed/Error: decryption-failed',
    'automatic-action/MDN-sent-automatically; processed/Error: authentication-failed',
    'automatic-action/MDN-sent-automatically; processed/Error: integrity-check-failed',
    'automatic-action/MDN-sent-automatically; processed/Error: insufficient-message-security',
    'automatic-action/MDN-sent-automatically; processed/Error: unexpected-processing-error',
    'automatic-action/MDN-sent-automatically; processed/Error: decompression-failed',
    'automatic-action/MDN-sent-automatically; processed/Warning: duplicate-document',
    'automatic-action/MDN-sent-automatically; failed/Failure: unsupported MIC-algorithms',
  ];
  for (const text of texts) t.equal(formatDisposition(parseDisposition(text)), text);
  const mendelson = parseDisposition(
    'automatic-action/MDN-sent-automatically; processed/error: unknown-trading-partner',
  );
  t.same(mendelson.modifier, { kind: 'error', description: 'unknown-trading-partner' });
  t.notOk(isSuccessful(mendelson));
  const loose = parseDisposition('  Automatic-Action / mdn-sent-automatically ;  Processed ');
  t.equal(formatDisposition(loose), formatDisposition(processed));
  t.ok(isSuccessful(loose));
  t.ok(
    isSuccessful(
      parseDisposition('automatic-action/MDN-sent-automatically; processed/warning: duplicate-document'),
    ),
  );
  t.notOk(isSuccessful(failedWithFailure('unsupported format')));
  t.equal(parseDisposition('manual-action/MDN-sent-manually; displayed').type, 'displayed');
  for (const bad of [
    '',
    'processed',
    'automatic-action; processed',
    'automatic-action/MDN-sent-automatically; exploded',
  ]) {
    t.throws(() => parseDisposition(bad), DispositionSyntaxError, JSON.stringify(bad));
  }
  for (const modifier of Object.keys(errorModifiers)) {
    const d = processedWithError(modifier as keyof typeof errorModifiers);
    t.same(parseDisposition(formatDisposition(d)), d, modifier);
  }
});

t.test('DispositionError carries its modifier and survives a thread boundary as JSON', async (t) => {
  const error = new DispositionError('decryption-failed', 'no key for this recipient');
  t.equal(error.code, 'AS2_DISPOSITION');
  t.equal(
    formatDisposition(error.disposition),
    'automatic-action/MDN-sent-automatically; processed/Error: decryption-failed',
  );
  const copy = DispositionError.fromJSON(structuredClone(error.toJSON()));
  t.equal(copy.modifier, 'decryption-failed');
  t.equal(copy.message, 'no key for this recipient');
  const failure = new DispositionError('unsupported MIC-algorithms', 'sha3 only');
  t.equal(failure.disposition.type, 'failed');
  t.throws(
    () =>
      failingAs('decompression-failed', 'inflating', () => {
        throw new RangeError('boom');
      }),
    { name: 'DispositionError', modifier: 'decompression-failed', message: 'inflating: boom' },
  );
  t.throws(
    () =>
      failingAs('decompression-failed', 'inflating', () => {
        throw new DispositionError('integrity-check-failed', 'inner');
      }),
    { name: 'DispositionError', modifier: 'integrity-check-failed' },
    'a deeper DispositionError keeps its modifier',
  );
});
