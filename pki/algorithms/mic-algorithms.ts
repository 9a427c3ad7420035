/**
 * MIC (digest) algorithms: one canonical name each, every spelling partners write in `micalg`,
 * `signed-receipt-micalg` and `Received-Content-MIC`, the node:crypto hash name and the CMS OIDs.
 *
 * Canonical names are RFC 5751's (`sha-256`); RFC 3851 and RFC 4130 wrote `sha1`, and partners
 * also send `sha256`, `SHA256`, `sha_256` or `SHA-256`. Every spelling maps to one entry.
 */
import { oids } from '../oids.js';

export const micAlgorithms = {
  md5: {
    nodeHash: 'md5',
    digestOid: oids.md5,
    rsaPkcs1SignatureOid: oids.md5WithRSAEncryption,
    ecdsaSignatureOid: null,
    digestBytes: 16,
    rfc3851: 'md5',
    rfc5751: 'md5',
    /** Accepted when a partner sends it; never generated under the as2bis rules. */
    legacy: true,
  },
  'sha-1': {
    nodeHash: 'sha1',
    digestOid: oids.sha1,
    rsaPkcs1SignatureOid: oids.sha1WithRSAEncryption,
    ecdsaSignatureOid: oids.ecdsaWithSha1,
    digestBytes: 20,
    rfc3851: 'sha1',
    rfc5751: 'sha-1',
    legacy: true,
  },
  'sha-224': {
    nodeHash: 'sha224',
    digestOid: oids.sha224,
    rsaPkcs1SignatureOid: oids.sha224WithRSAEncryption,
    ecdsaSignatureOid: oids.ecdsaWithSha224,
    digestBytes: 28,
    rfc3851: 'sha224',
    rfc5751: 'sha-224',
    legacy: false,
  },
  'sha-256': {
    nodeHash: 'sha256',
    digestOid: oids.sha256,
    rsaPkcs1SignatureOid: oids.sha256WithRSAEncryption,
    ecdsaSignatureOid: oids.ecdsaWithSha256,
    digestBytes: 32,
    rfc3851: 'sha256',
    rfc5751: 'sha-256',
    legacy: false,
  },
  'sha-384': {
    nodeHash: 'sha384',
    digestOid: oids.sha384,
    rsaPkcs1SignatureOid: oids.sha384WithRSAEncryption,
    ecdsaSignatureOid: oids.ecdsaWithSha384,
    digestBytes: 48,
    rfc3851: 'sha384',
    rfc5751: 'sha-384',
    legacy: false,
  },
  'sha-512': {
    nodeHash: 'sha512',
    digestOid: oids.sha512,
    rsaPkcs1SignatureOid: oids.sha512WithRSAEncryption,
    ecdsaSignatureOid: oids.ecdsaWithSha512,
    digestBytes: 64,
    rfc3851: 'sha512',
    rfc5751: 'sha-512',
    legacy: false,
  },
  // SHA-3 (FIPS 202): no S/MIME registry name yet; Mendelson and BouncyCastle write sha3-256.
  'sha3-256': {
    nodeHash: 'sha3-256',
    digestOid: oids.sha3_256,
    rsaPkcs1SignatureOid: oids.rsaWithSha3_256,
    ecdsaSignatureOid: oids.ecdsaWithSha3_256,
    digestBytes: 32,
    rfc3851: 'sha3-256',
    rfc5751: 'sha3-256',
    legacy: false,
  },
  'sha3-384': {
    nodeHash: 'sha3-384',
    digestOid: oids.sha3_384,
    rsaPkcs1SignatureOid: oids.rsaWithSha3_384,
    ecdsaSignatureOid: oids.ecdsaWithSha3_384,
    digestBytes: 48,
    rfc3851: 'sha3-384',
    rfc5751: 'sha3-384',
    legacy: false,
  },
  'sha3-512': {
    nodeHash: 'sha3-512',
    digestOid: oids.sha3_512,
    rsaPkcs1SignatureOid: oids.rsaWithSha3_512,
    ecdsaSignatureOid: oids.ecdsaWithSha3_512,
    digestBytes: 64,
    rfc3851: 'sha3-512',
    rfc5751: 'sha3-512',
    legacy: false,
  },
} as const;

export type MicAlgorithm = keyof typeof micAlgorithms;

/**
 * How pier writes an algorithm name to a partner: `rfc5751` (`sha-256`, the current S/MIME
 * registry) or `rfc3851` (`sha256`, `sha1`: what RFC 4130's examples and many older gateways use).
 */
export type MicSpelling = 'rfc5751' | 'rfc3851';

export const micAlgorithmNames = Object.keys(micAlgorithms) as MicAlgorithm[];

// Spellings reduce to one key by dropping case, quotes, blanks, '-' and '_': "SHA_256" → "sha256".
const bySquashedName = new Map<string, MicAlgorithm>(micAlgorithmNames.map((name) => [squash(name), name]));

function squash(name: string): string {
  return name.toLowerCase().replace(/["'\s_-]/g, '');
}

/** The canonical algorithm for any spelling a partner uses, or null for an unknown one. */
export function parseMicAlgorithm(name: string): MicAlgorithm | null {
  return bySquashedName.get(squash(name)) ?? null;
}

export function micAlgorithmName(algorithm: MicAlgorithm, spelling: MicSpelling = 'rfc5751'): string {
  return micAlgorithms[algorithm][spelling];
}

const byDigestOid = new Map<string, MicAlgorithm>(
  micAlgorithmNames.map((name) => [micAlgorithms[name].digestOid, name]),
);
const byPkcs1SignatureOid = new Map<string, MicAlgorithm>(
  micAlgorithmNames.map((name) => [micAlgorithms[name].rsaPkcs1SignatureOid, name]),
);

const byEcdsaSignatureOid = new Map<string, MicAlgorithm>(
  micAlgorithmNames.flatMap((name) => {
    const oid = micAlgorithms[name].ecdsaSignatureOid;
    return oid ? [[oid, name] as const] : [];
  }),
);

/** `ecdsa-with-SHA256` and its siblings (RFC 5758, and SHA-3's from NIST): the digest they name. */
export function micAlgorithmForEcdsaSignatureOid(oid: string): MicAlgorithm | null {
  return byEcdsaSignatureOid.get(oid) ?? null;
}

export function micAlgorithmForDigestOid(oid: string): MicAlgorithm | null {
  return byDigestOid.get(oid) ?? null;
}

/** `sha256WithRSAEncryption` and its siblings name the digest too; some signers put them in the digest field. */
export function micAlgorithmForPkcs1SignatureOid(oid: string): MicAlgorithm | null {
  return byPkcs1SignatureOid.get(oid) ?? null;
}
