/**
 * EC key agreement for EnvelopedData: ECDH ephemeral-static (RFC 5753 §3.1) and 1-pass ECMQV
 * (RFC 5753 §3.2), with RFC 5008 / RFC 6318 for the choice of hash by curve: the KDF schemes pier
 * reads and writes, the key-wrap algorithms that carry the content-encryption key, and the
 * curves an encryption certificate may use.
 */
import { oids } from '../oids.js';

/** How protocols.as2 names a key agreement in its key_transport field. */
export type KeyAgreementUsed = `ecdh-${string}kdf` | `ecmqv-${string}kdf`;

/**
 * What pier writes to a partner's EC certificate (the profile's `key_agreement`): ECDH with an
 * ephemeral key, or 1-pass ECMQV with an ephemeral key and the organization's static key.
 */
export const keyAgreementChoices = ['ecdh', 'ecmqv'] as const;
export type KeyAgreementChoice = (typeof keyAgreementChoices)[number];

export interface KeyAgreementScheme {
  /** ECDH (ephemeral-static) or 1-pass ECMQV. */
  kind: KeyAgreementChoice;
  /** What protocols.as2 reports as the message's key transport, for example `ecdh-sha256kdf`. */
  name: KeyAgreementUsed;
  /** node:crypto hash of the ANSI X9.63 KDF. */
  kdfHash: 'sha1' | 'sha224' | 'sha256' | 'sha384' | 'sha512';
}

/**
 * dhSinglePass-stdDH-sha*kdf-scheme and their cofactor siblings. Every curve pier takes has a
 * cofactor of 1, so cofactor ECDH computes the same secret as standard ECDH: both are read.
 * SHA-1 is read because it is `openssl cms -encrypt`'s default; pier writes SHA-256 and up.
 * mqvSinglePass-sha*kdf-scheme likewise: SHA-1 is what mendelson AS2 (BouncyCastle) writes.
 */
export const keyAgreementSchemes: Record<string, KeyAgreementScheme> = {
  [oids.dhSinglePassStdDhSha1Kdf]: { kind: 'ecdh', name: 'ecdh-sha1kdf', kdfHash: 'sha1' },
  [oids.dhSinglePassStdDhSha224Kdf]: { kind: 'ecdh', name: 'ecdh-sha224kdf', kdfHash: 'sha224' },
  [oids.dhSinglePassStdDhSha256Kdf]: { kind: 'ecdh', name: 'ecdh-sha256kdf', kdfHash: 'sha256' },
  [oids.dhSinglePassStdDhSha384Kdf]: { kind: 'ecdh', name: 'ecdh-sha384kdf', kdfHash: 'sha384' },
  [oids.dhSinglePassStdDhSha512Kdf]: { kind: 'ecdh', name: 'ecdh-sha512kdf', kdfHash: 'sha512' },
  [oids.dhSinglePassCofactorDhSha1Kdf]: { kind: 'ecdh', name: 'ecdh-cofactor-sha1kdf', kdfHash: 'sha1' },
  [oids.dhSinglePassCofactorDhSha224Kdf]: {
    kind: 'ecdh',
    name: 'ecdh-cofactor-sha224kdf',
    kdfHash: 'sha224',
  },
  [oids.dhSinglePassCofactorDhSha256Kdf]: {
    kind: 'ecdh',
    name: 'ecdh-cofactor-sha256kdf',
    kdfHash: 'sha256',
  },
  [oids.dhSinglePassCofactorDhSha384Kdf]: {
    kind: 'ecdh',
    name: 'ecdh-cofactor-sha384kdf',
    kdfHash: 'sha384',
  },
  [oids.dhSinglePassCofactorDhSha512Kdf]: {
    kind: 'ecdh',
    name: 'ecdh-cofactor-sha512kdf',
    kdfHash: 'sha512',
  },
  [oids.mqvSinglePassSha1Kdf]: { kind: 'ecmqv', name: 'ecmqv-sha1kdf', kdfHash: 'sha1' },
  [oids.mqvSinglePassSha224Kdf]: { kind: 'ecmqv', name: 'ecmqv-sha224kdf', kdfHash: 'sha224' },
  [oids.mqvSinglePassSha256Kdf]: { kind: 'ecmqv', name: 'ecmqv-sha256kdf', kdfHash: 'sha256' },
  [oids.mqvSinglePassSha384Kdf]: { kind: 'ecmqv', name: 'ecmqv-sha384kdf', kdfHash: 'sha384' },
  [oids.mqvSinglePassSha512Kdf]: { kind: 'ecmqv', name: 'ecmqv-sha512kdf', kdfHash: 'sha512' },
};

/**
 * The curves an EC encryption certificate may use (node:crypto's names), each with the KDF
 * scheme pier writes for it: the hash whose strength matches the curve's (RFC 6318 §2), for
 * ECDH and, on the NIST curves, for 1-pass ECMQV.
 */
export const keyAgreementCurves: Record<string, { writeScheme: string; mqvScheme?: string }> = {
  prime256v1: { writeScheme: oids.dhSinglePassStdDhSha256Kdf, mqvScheme: oids.mqvSinglePassSha256Kdf },
  secp384r1: { writeScheme: oids.dhSinglePassStdDhSha384Kdf, mqvScheme: oids.mqvSinglePassSha384Kdf },
  secp521r1: { writeScheme: oids.dhSinglePassStdDhSha512Kdf, mqvScheme: oids.mqvSinglePassSha512Kdf },
  brainpoolP256r1: { writeScheme: oids.dhSinglePassStdDhSha256Kdf },
  brainpoolP384r1: { writeScheme: oids.dhSinglePassStdDhSha384Kdf },
  brainpoolP512r1: { writeScheme: oids.dhSinglePassStdDhSha512Kdf },
};

/** Key-wrap algorithms by OID: RFC 3394 AES key wrap, and RFC 3217 3DES wrap (read only). */
export const keyWraps: Record<string, { cipher: string; kekBytes: number }> = {
  [oids.aes128Wrap]: { cipher: 'id-aes128-wrap', kekBytes: 16 },
  [oids.aes192Wrap]: { cipher: 'id-aes192-wrap', kekBytes: 24 },
  [oids.aes256Wrap]: { cipher: 'id-aes256-wrap', kekBytes: 32 },
  [oids.cms3DesWrap]: { cipher: 'des3-wrap', kekBytes: 24 },
};

/** The AES wrap pier writes: as strong as the content key (OpenSSL's rule, without 3DES wrap). */
export function aesWrapFor(contentKeyBytes: number): string {
  if (contentKeyBytes <= 16) return oids.aes128Wrap;
  if (contentKeyBytes <= 24) return oids.aes192Wrap;
  return oids.aes256Wrap;
}
