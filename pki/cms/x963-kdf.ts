/**
 * The key-encryption key of EC key agreement in CMS (RFC 5753 §7.2): the ANSI X9.63 KDF over the
 * shared secret, its ECC-CMS-SharedInfo, and the content key wrapped under the result with
 * RFC 3394 AES key wrap (or RFC 3217 3DES wrap, read only). node:crypto does the hashing and wrap.
 */
import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import { explicit, octetString, raw, sequence, toBuffer, type Der } from '../asn1/writer.js';
import { cipherKey } from '../quiet-key-checks.js';

/** RFC 3394's default initial value; RFC 3217's 3DES wrap carries its own IV. */
const aesWrapIv = Buffer.from('a6a6a6a6a6a6a6a6', 'hex');

export type KdfHash = 'sha1' | 'sha224' | 'sha256' | 'sha384' | 'sha512';

/** ANSI X9.63 KDF (SEC 1 §3.6.1): hash(Z ‖ counter ‖ SharedInfo) for counter = 1, 2, … */
export function x963Kdf(hash: KdfHash, secret: Buffer, sharedInfo: Buffer, bytes: number): Buffer {
  const blocks: Buffer[] = [];
  let length = 0;
  for (let counter = 1; length < bytes; counter++) {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    const block = createHash(hash).update(secret).update(count).update(sharedInfo).digest();
    blocks.push(block);
    length += block.length;
  }
  return Buffer.concat(blocks).subarray(0, bytes);
}

/**
 * ECC-CMS-SharedInfo (RFC 5753 §7.2): the key-wrap AlgorithmIdentifier as the message carries
 * it, the user keying material when present, and the key-encryption key's length in bits.
 */
export function eccCmsSharedInfo(wrapAlgorithm: Buffer, ukm: Buffer | null, kekBytes: number): Buffer {
  const bits = Buffer.alloc(4);
  bits.writeUInt32BE(kekBytes * 8);
  const fields: Der[] = [raw(wrapAlgorithm)];
  if (ukm) fields.push(explicit(0, octetString(ukm)));
  fields.push(explicit(2, octetString(bits)));
  return toBuffer(sequence(...fields));
}

/** The content key wrapped under the key-encryption key with AES key wrap; zeroes the KEK. */
export function wrapContentKey(cipher: string, kek: Buffer, contentKey: Buffer): Buffer {
  const wrap = createCipheriv(cipher, cipherKey(kek), aesWrapIv);
  const wrapped = Buffer.concat([wrap.update(contentKey), wrap.final()]);
  kek.fill(0);
  return wrapped;
}

/** The content key unwrapped; a wrong KEK fails the wrap's integrity check and throws. Zeroes the KEK. */
export function unwrapContentKey(cipher: string, kek: Buffer, encryptedKey: Buffer): Buffer {
  try {
    const unwrap = createDecipheriv(cipher, cipherKey(kek), cipher === 'des3-wrap' ? null : aesWrapIv);
    return Buffer.concat([unwrap.update(encryptedKey), unwrap.final()]);
  } finally {
    kek.fill(0);
  }
}
