/**
 * Content-encryption and key-transport algorithms pier writes and reads, with their OIDs and
 * node:crypto names. RC2 is read only (Node's OpenSSL keeps it in the legacy provider).
 */
import { oids } from '../oids.js';
import type { MicAlgorithm } from './mic-algorithms.js';

export const contentEncryptionAlgorithms = {
  '3des': {
    oid: oids.desEde3Cbc,
    cipher: 'des-ede3-cbc',
    keyBytes: 24,
    ivBytes: 8,
    mode: 'cbc',
    legacy: true,
  },
  'aes128-cbc': {
    oid: oids.aes128Cbc,
    cipher: 'aes-128-cbc',
    keyBytes: 16,
    ivBytes: 16,
    mode: 'cbc',
    legacy: false,
  },
  'aes192-cbc': {
    oid: oids.aes192Cbc,
    cipher: 'aes-192-cbc',
    keyBytes: 24,
    ivBytes: 16,
    mode: 'cbc',
    legacy: false,
  },
  'aes256-cbc': {
    oid: oids.aes256Cbc,
    cipher: 'aes-256-cbc',
    keyBytes: 32,
    ivBytes: 16,
    mode: 'cbc',
    legacy: false,
  },
  // RFC 5084: a 12-byte nonce; pier writes a 16-byte tag and says so in the parameters.
  'aes128-gcm': {
    oid: oids.aes128Gcm,
    cipher: 'aes-128-gcm',
    keyBytes: 16,
    ivBytes: 12,
    mode: 'gcm',
    legacy: false,
  },
  'aes192-gcm': {
    oid: oids.aes192Gcm,
    cipher: 'aes-192-gcm',
    keyBytes: 24,
    ivBytes: 12,
    mode: 'gcm',
    legacy: false,
  },
  'aes256-gcm': {
    oid: oids.aes256Gcm,
    cipher: 'aes-256-gcm',
    keyBytes: 32,
    ivBytes: 12,
    mode: 'gcm',
    legacy: false,
  },
} as const;

export type ContentEncryption = keyof typeof contentEncryptionAlgorithms;
/** What a received message may use: everything pier writes, plus RC2. */
export type ReadableContentEncryption = ContentEncryption | 'rc2-cbc';

const contentEncryptionNames = Object.keys(contentEncryptionAlgorithms) as ContentEncryption[];

const byOid = new Map<string, ContentEncryption>(
  contentEncryptionNames.map((name) => [contentEncryptionAlgorithms[name].oid, name]),
);

export function contentEncryptionForOid(oid: string): ReadableContentEncryption | null {
  if (oid === oids.rc2Cbc) return 'rc2-cbc';
  return byOid.get(oid) ?? null;
}

/**
 * RSA key transport: PKCS#1 v1.5 (what most partners use), RSAES-OAEP with SHA-1 (RFC 3560's
 * default parameters, BizTalk and most OAEP partners) or with SHA-256 for hash and MGF1.
 */
export const keyTransportAlgorithms = {
  'rsa-pkcs1': { oaepHash: null },
  'rsa-oaep': { oaepHash: 'sha-1' },
  'rsa-oaep-sha256': { oaepHash: 'sha-256' },
} as const satisfies Record<string, { oaepHash: MicAlgorithm | null }>;

export type KeyTransport = keyof typeof keyTransportAlgorithms;

/**
 * Signature schemes: RSA PKCS#1 v1.5 (universal), RSASSA-PSS (RFC 4056, S/MIME 4.0) and ECDSA
 * (RFC 5753 §2.1, with the P-256/384/521 keys OpenAS2 signs with).
 */
export type SignatureScheme = 'rsa-pkcs1' | 'rsa-pss' | 'ecdsa';
