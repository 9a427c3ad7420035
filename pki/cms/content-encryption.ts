/**
 * Symmetric content encryption for EnvelopedData (CBC) and AuthEnvelopedData (GCM) with their
 * AlgorithmIdentifier parameters (RFC 3565, RFC 5084, RFC 3370). node:crypto does the work;
 * RC2, which Node's OpenSSL no longer loads, is decrypted by pier's own RC2 (rc2.ts) for old
 * partners.
 */
import {
  createCipheriv,
  createDecipheriv,
  randomBytes,
  type Cipher,
  type CipherGCM,
  type DecipherGCM,
} from 'node:crypto';
import {
  contentEncryptionAlgorithms,
  contentEncryptionForOid,
  type ContentEncryption,
  type ReadableContentEncryption,
} from '../algorithms/encryption-algorithms.js';
import {
  Asn1Error,
  readOctets,
  readOid,
  readSmallInteger,
  universalTag,
  type Asn1Node,
} from '../asn1/reader.js';
import { algorithmIdentifier, integer, octetString, sequence, type Der } from '../asn1/writer.js';
import { Rc2CbcDecipher } from './rc2.js';
import { cipherKey } from '../quiet-key-checks.js';

/** Length of the authentication tag pier writes for GCM; RFC 5084's default is 12. */
const gcmTagBytes = 16;
/** Slice size fed to node:crypto: bounds the transient copy each update() returns. */
const sliceBytes = 1024 * 1024;

export interface EncryptedContent {
  key: Buffer;
  algorithm: Der;
  ciphertext: Buffer[];
  /** GCM's authentication tag (AuthEnvelopedData's mac), null for CBC. */
  tag: Buffer | null;
}

export function encryptContent(name: ContentEncryption, content: readonly Buffer[]): EncryptedContent {
  const started = startContentEncryption(name);
  const ciphertext: Buffer[] = [];
  for (const chunk of content) {
    for (let at = 0; at < chunk.length; at += sliceBytes)
      ciphertext.push(started.cipher.update(chunk.subarray(at, at + sliceBytes)));
  }
  ciphertext.push(started.cipher.final());
  return { key: started.key, algorithm: started.algorithm, ciphertext, tag: started.tag() };
}

export interface ContentEncryptionStarted {
  key: Buffer;
  algorithm: Der;
  /** Fed the content, then final(); for content that is streamed, a slice at a time. */
  cipher: Cipher;
  /** GCM's authentication tag once the cipher is final, null for CBC. */
  tag(): Buffer | null;
}

/** A fresh random key and IV and the cipher under them, with their AlgorithmIdentifier. */
export function startContentEncryption(name: ContentEncryption): ContentEncryptionStarted {
  const spec = contentEncryptionAlgorithms[name];
  const key = randomBytes(spec.keyBytes);
  if (name === '3des') setOddParity(key);
  const iv = randomBytes(spec.ivBytes);
  const cipher = createCipheriv(spec.cipher, cipherKey(key), iv);
  if (spec.mode === 'gcm') {
    const parameters = sequence(octetString(iv), integer(gcmTagBytes));
    return {
      key,
      algorithm: algorithmIdentifier(spec.oid, parameters),
      cipher,
      tag: () => (cipher as CipherGCM).getAuthTag(),
    };
  }
  return { key, algorithm: algorithmIdentifier(spec.oid, octetString(iv)), cipher, tag: () => null };
}

/** DES keys carry a parity bit per byte; OpenSSL sets it, and some strict readers check it. */
function setOddParity(key: Buffer): void {
  for (let i = 0; i < key.length; i++) {
    const b = key[i]! & 0xfe;
    let ones = 0;
    for (let bit = 1; bit < 0x100; bit <<= 1) if (b & bit) ones++;
    key[i] = b | (ones % 2 === 0 ? 1 : 0);
  }
}

export interface ContentAlgorithm {
  name: ReadableContentEncryption;
  keyBytes: number;
  iv: Buffer;
  /** GCM: tag length in bytes from the parameters. */
  tagBytes: number;
  /** RC2: effective key bits. */
  rc2Bits: number;
}

// RFC 2268 §6: rc2ParameterVersion for the usual effective key sizes.
const rc2VersionBits = new Map([
  [160, 40],
  [120, 64],
  [58, 128],
]);

export function readContentAlgorithm(identifier: Asn1Node): ContentAlgorithm {
  const oid = readOid(identifier.child(0, 'contentEncryptionAlgorithm'));
  const name = contentEncryptionForOid(oid);
  if (!name) throw new Asn1Error(`unsupported content encryption ${oid}`);
  const params = identifier.child(1, 'algorithm parameters');
  if (name === 'rc2-cbc') {
    // RC2-CBC-Parameter: SEQUENCE { version INTEGER OPTIONAL, iv } or, in old PKCS#7, the IV alone.
    let bits = 32;
    let iv: Buffer;
    if (params.isUniversal(universalTag.sequence)) {
      const hasVersion = params.children.length > 1;
      if (hasVersion) {
        const version = readSmallInteger(params.child(0, 'rc2ParameterVersion'));
        bits = version >= 256 ? version : (rc2VersionBits.get(version) ?? 0);
        if (!bits) throw new Asn1Error(`unsupported RC2 parameter version ${version}`);
      }
      iv = readOctets(params.child(hasVersion ? 1 : 0, 'RC2 iv'));
    } else iv = readOctets(params);
    if (iv.length !== 8) throw new Asn1Error(`IV of ${iv.length} bytes for ${name}`);
    return { name, keyBytes: Math.ceil(bits / 8), iv, tagBytes: 0, rc2Bits: bits };
  }
  const spec = contentEncryptionAlgorithms[name];
  if (spec.mode === 'gcm') {
    const nonce = readOctets(params.child(0, 'aes-nonce'));
    const tagNode = params.children[1];
    const tagBytes = tagNode ? readSmallInteger(tagNode) : 12;
    if (tagBytes < 12 || tagBytes > 16) throw new Asn1Error(`unsupported GCM tag length ${tagBytes}`);
    return { name, keyBytes: spec.keyBytes, iv: nonce, tagBytes, rc2Bits: 0 };
  }
  const iv = readOctets(params);
  if (iv.length !== spec.ivBytes) throw new Asn1Error(`IV of ${iv.length} bytes for ${name}`);
  return { name, keyBytes: spec.keyBytes, iv, tagBytes: 0, rc2Bits: 0 };
}

/**
 * Decrypts; throws on a wrong key (CBC padding, GCM tag), which the caller reports as
 * decryption-failed. `tag` and `aad` are AuthEnvelopedData's mac and authenticated attributes.
 */
export function decryptContent(
  algorithm: ContentAlgorithm,
  key: Buffer,
  ciphertext: readonly Buffer[],
  auth?: { tag: Buffer; aad: Buffer | null },
): Buffer {
  return runDecipher(contentDecipher(algorithm, key, auth), ciphertext);
}

export interface ContentDecipher {
  update(piece: Buffer): Buffer;
  /** Throws on a wrong key (CBC padding, GCM tag). */
  final(): Buffer;
}

/**
 * A decipher for the content, tag and authenticated attributes set, for deciphering in pieces;
 * the streaming reader (stream/) uses it too. node:crypto's, or for RC2 pier's own.
 */
export function contentDecipher(
  algorithm: ContentAlgorithm,
  key: Buffer,
  auth?: { tag: Buffer; aad: Buffer | null },
): ContentDecipher {
  if (algorithm.name === 'rc2-cbc') {
    if (auth) throw new Asn1Error('rc2-cbc in AuthEnvelopedData');
    return new Rc2CbcDecipher(key, algorithm.rc2Bits, algorithm.iv);
  }
  const spec = contentEncryptionAlgorithms[algorithm.name];
  if (spec.mode === 'gcm') {
    if (!auth) throw new Asn1Error('AES-GCM outside AuthEnvelopedData has no authentication tag');
    if (auth.tag.length !== algorithm.tagBytes) throw new Asn1Error('authentication tag of the wrong length');
    const decipher = createDecipheriv(spec.cipher, cipherKey(key), algorithm.iv, {
      authTagLength: algorithm.tagBytes,
    }) as DecipherGCM;
    decipher.setAuthTag(auth.tag);
    if (auth.aad) decipher.setAAD(auth.aad);
    return decipher;
  }
  if (auth) throw new Asn1Error(`${algorithm.name} in AuthEnvelopedData`);
  return createDecipheriv(spec.cipher, cipherKey(key), algorithm.iv);
}

/**
 * Deciphers into one buffer allocated up front (plaintext is never longer than the ciphertext),
 * feeding the cipher a slice at a time, so a 64 MiB message costs one plaintext-sized buffer.
 */
function runDecipher(
  decipher: { update(b: Buffer): Buffer; final(): Buffer },
  ciphertext: readonly Buffer[],
): Buffer {
  let total = 0;
  for (const chunk of ciphertext) total += chunk.length;
  const out = Buffer.allocUnsafe(total + 32);
  let length = 0;
  for (const chunk of ciphertext) {
    for (let at = 0; at < chunk.length; at += sliceBytes) {
      length += decipher.update(chunk.subarray(at, at + sliceBytes)).copy(out, length);
    }
  }
  length += decipher.final().copy(out, length);
  out.fill(0, length); // the slack was never written: leave no stale memory behind the view
  return out.subarray(0, length);
}
