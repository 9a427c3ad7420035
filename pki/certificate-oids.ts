/**
 * The object identifiers certificates, PKCS#7 and PKCS#12 files use, with the names shown to
 * operators. An identifier CMS also uses is taken from the one table in oids.ts, never typed twice.
 */
import { oids } from './oids.js';

export const commonNameOid = '2.5.4.3';

/** Distinguished-name attributes, by the short names of RFC 4514 and OpenSSL. */
export const nameAttributes: Record<string, string> = {
  [commonNameOid]: 'CN',
  '2.5.4.4': 'SN',
  '2.5.4.5': 'serialNumber',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.9': 'STREET',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.12': 'title',
  '2.5.4.17': 'postalCode',
  '2.5.4.42': 'GN',
  '2.5.4.46': 'dnQualifier',
  '2.5.4.65': 'pseudonym',
  '2.5.4.97': 'organizationIdentifier',
  '0.9.2342.19200300.100.1.1': 'UID',
  '0.9.2342.19200300.100.1.25': 'DC',
  '1.2.840.113549.1.9.1': 'emailAddress',
};

export const signatureAlgorithms: Record<string, string> = {
  [oids.md5WithRSAEncryption]: 'md5WithRSAEncryption',
  [oids.sha1WithRSAEncryption]: 'sha1WithRSAEncryption',
  [oids.rsassaPss]: 'RSASSA-PSS',
  [oids.sha256WithRSAEncryption]: 'sha256WithRSAEncryption',
  [oids.sha384WithRSAEncryption]: 'sha384WithRSAEncryption',
  [oids.sha512WithRSAEncryption]: 'sha512WithRSAEncryption',
  [oids.sha224WithRSAEncryption]: 'sha224WithRSAEncryption',
  '1.2.840.10045.4.1': 'ecdsa-with-SHA1',
  '1.2.840.10045.4.3.1': 'ecdsa-with-SHA224',
  '1.2.840.10045.4.3.2': 'ecdsa-with-SHA256',
  '1.2.840.10045.4.3.3': 'ecdsa-with-SHA384',
  '1.2.840.10045.4.3.4': 'ecdsa-with-SHA512',
  '1.2.840.10040.4.3': 'dsa-with-SHA1',
  '2.16.840.1.101.3.4.3.2': 'dsa-with-SHA256',
  '1.3.101.112': 'Ed25519',
  '1.3.101.113': 'Ed448',
};

export const extensions = {
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  extendedKeyUsage: '2.5.29.37',
} as const;

/** Bits of the keyUsage extension, in bit order (RFC 5280 4.2.1.3). */
export const keyUsageBits = [
  'digitalSignature',
  'nonRepudiation',
  'keyEncipherment',
  'dataEncipherment',
  'keyAgreement',
  'keyCertSign',
  'cRLSign',
  'encipherOnly',
  'decipherOnly',
] as const;

export const extendedKeyUsages: Record<string, string> = {
  '2.5.29.37.0': 'anyExtendedKeyUsage',
  '1.3.6.1.5.5.7.3.1': 'serverAuth',
  '1.3.6.1.5.5.7.3.2': 'clientAuth',
  '1.3.6.1.5.5.7.3.3': 'codeSigning',
  '1.3.6.1.5.5.7.3.4': 'emailProtection',
  '1.3.6.1.5.5.7.3.8': 'timeStamping',
  '1.3.6.1.5.5.7.3.9': 'OCSPSigning',
};

/** Elliptic curves by the names node:crypto reports, with their size in bits. */
export const curveBits: Record<string, number> = {
  prime256v1: 256,
  secp256k1: 256,
  secp384r1: 384,
  secp521r1: 521,
  brainpoolP256r1: 256,
  brainpoolP384r1: 384,
  brainpoolP512r1: 512,
};

export const cms = {
  data: oids.data,
  signedData: oids.signedData,
  encryptedData: '1.2.840.113549.1.7.6',
} as const;

export const pkcs12 = {
  keyBag: '1.2.840.113549.1.12.10.1.1',
  shroudedKeyBag: '1.2.840.113549.1.12.10.1.2',
  certBag: '1.2.840.113549.1.12.10.1.3',
  crlBag: '1.2.840.113549.1.12.10.1.4',
  secretBag: '1.2.840.113549.1.12.10.1.5',
  safeContentsBag: '1.2.840.113549.1.12.10.1.6',
  x509Certificate: '1.2.840.113549.1.9.22.1',
  friendlyName: '1.2.840.113549.1.9.20',
  localKeyId: '1.2.840.113549.1.9.21',
} as const;

/** Digests a PKCS#12 MAC may use (node:crypto names). */
export const macDigests: Record<string, { name: string; bytes: number }> = {
  [oids.sha1]: { name: 'sha1', bytes: 20 },
  [oids.sha224]: { name: 'sha224', bytes: 28 },
  [oids.sha256]: { name: 'sha256', bytes: 32 },
  [oids.sha384]: { name: 'sha384', bytes: 48 },
  [oids.sha512]: { name: 'sha512', bytes: 64 },
};
