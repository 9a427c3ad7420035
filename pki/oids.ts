/**
 * Every CMS object identifier pier reads or writes, in one table (RFC 5652 CMS, RFC 3370 / 5754
 * digests, RFC 8017 RSA, RFC 3565 / 5084 AES, RFC 3274 compression, RFC 5083 AuthEnvelopedData,
 * RFC 6211 algorithm protection, RFC 5753 ECDH and ECMQV, RFC 3394 key wrap). `oids.test.ts` checks each against the ASN.1 modules of those
 * RFCs and against OpenSSL's own names.
 */
export const oids = {
  // Content types
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  envelopedData: '1.2.840.113549.1.7.3',
  compressedData: '1.2.840.113549.1.9.16.1.9',
  authEnvelopedData: '1.2.840.113549.1.9.16.1.23',

  // Signed attributes
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  smimeCapabilities: '1.2.840.113549.1.9.15',
  cmsAlgorithmProtection: '1.2.840.113549.1.9.52',

  // Digests
  md5: '1.2.840.113549.2.5',
  sha1: '1.3.14.3.2.26',
  sha224: '2.16.840.1.101.3.4.2.4',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha384: '2.16.840.1.101.3.4.2.2',
  sha512: '2.16.840.1.101.3.4.2.3',
  sha3_256: '2.16.840.1.101.3.4.2.8',
  sha3_384: '2.16.840.1.101.3.4.2.9',
  sha3_512: '2.16.840.1.101.3.4.2.10',

  // RSA signatures and key transport
  rsaEncryption: '1.2.840.113549.1.1.1',
  md5WithRSAEncryption: '1.2.840.113549.1.1.4',
  sha1WithRSAEncryption: '1.2.840.113549.1.1.5',
  sha224WithRSAEncryption: '1.2.840.113549.1.1.14',
  sha256WithRSAEncryption: '1.2.840.113549.1.1.11',
  sha384WithRSAEncryption: '1.2.840.113549.1.1.12',
  sha512WithRSAEncryption: '1.2.840.113549.1.1.13',
  rsassaPss: '1.2.840.113549.1.1.10',
  // RFC 8702 (and NIST CSOR): RSA PKCS#1 v1.5 and ECDSA with SHA-3
  rsaWithSha3_256: '2.16.840.1.101.3.4.3.14',
  rsaWithSha3_384: '2.16.840.1.101.3.4.3.15',
  rsaWithSha3_512: '2.16.840.1.101.3.4.3.16',
  ecdsaWithSha3_256: '2.16.840.1.101.3.4.3.10',
  ecdsaWithSha3_384: '2.16.840.1.101.3.4.3.11',
  ecdsaWithSha3_512: '2.16.840.1.101.3.4.3.12',

  // Elliptic curves (RFC 5480, RFC 5758 ECDSA)
  ecPublicKey: '1.2.840.10045.2.1',
  ecdsaWithSha1: '1.2.840.10045.4.1',
  ecdsaWithSha224: '1.2.840.10045.4.3.1',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  ecdsaWithSha384: '1.2.840.10045.4.3.3',
  ecdsaWithSha512: '1.2.840.10045.4.3.4',
  // ECDH key agreement (RFC 5753 §7.1.4): ANSI X9.63 KDF with each hash, standard and cofactor
  dhSinglePassStdDhSha1Kdf: '1.3.133.16.840.63.0.2',
  dhSinglePassStdDhSha224Kdf: '1.3.132.1.11.0',
  dhSinglePassStdDhSha256Kdf: '1.3.132.1.11.1',
  dhSinglePassStdDhSha384Kdf: '1.3.132.1.11.2',
  dhSinglePassStdDhSha512Kdf: '1.3.132.1.11.3',
  dhSinglePassCofactorDhSha1Kdf: '1.3.133.16.840.63.0.3',
  dhSinglePassCofactorDhSha224Kdf: '1.3.132.1.14.0',
  dhSinglePassCofactorDhSha256Kdf: '1.3.132.1.14.1',
  dhSinglePassCofactorDhSha384Kdf: '1.3.132.1.14.2',
  dhSinglePassCofactorDhSha512Kdf: '1.3.132.1.14.3',
  // 1-pass ECMQV key agreement (RFC 5753 §7.1.4): ANSI X9.63 KDF with each hash
  mqvSinglePassSha1Kdf: '1.3.133.16.840.63.0.16',
  mqvSinglePassSha224Kdf: '1.3.132.1.15.0',
  mqvSinglePassSha256Kdf: '1.3.132.1.15.1',
  mqvSinglePassSha384Kdf: '1.3.132.1.15.2',
  mqvSinglePassSha512Kdf: '1.3.132.1.15.3',
  rsaesOaep: '1.2.840.113549.1.1.7',
  mgf1: '1.2.840.113549.1.1.8',
  pSpecified: '1.2.840.113549.1.1.9',

  // Content encryption
  desEde3Cbc: '1.2.840.113549.3.7',
  rc2Cbc: '1.2.840.113549.3.2',
  aes128Cbc: '2.16.840.1.101.3.4.1.2',
  aes192Cbc: '2.16.840.1.101.3.4.1.22',
  aes256Cbc: '2.16.840.1.101.3.4.1.42',
  aes128Gcm: '2.16.840.1.101.3.4.1.6',
  aes192Gcm: '2.16.840.1.101.3.4.1.26',
  aes256Gcm: '2.16.840.1.101.3.4.1.46',

  // Key wrap (RFC 3394 AES, RFC 3217 3DES)
  aes128Wrap: '2.16.840.1.101.3.4.1.5',
  aes192Wrap: '2.16.840.1.101.3.4.1.25',
  aes256Wrap: '2.16.840.1.101.3.4.1.45',
  cms3DesWrap: '1.2.840.113549.1.9.16.3.6',

  // Compression
  zlibCompress: '1.2.840.113549.1.9.16.3.8',

  // Certificate extension used to match a SubjectKeyIdentifier recipient or signer
  subjectKeyIdentifier: '2.5.29.14',
} as const;

export type OidName = keyof typeof oids;

const namesByOid = new Map<string, OidName>(
  Object.entries(oids).map(([name, oid]) => [oid, name as OidName]),
);

/** The table's name for an OID, or the dotted OID itself for one pier does not know (for messages). */
export function oidName(oid: string): string {
  return namesByOid.get(oid) ?? oid;
}
