/**
 * RSAES-PKCS1-v1_5 key transport decryption without Node's PKCS#1 padding mode, which Node 20
 * refuses for private decryption (CVE-2023-46809, the Marvin attack).
 *
 * The raw RSA operation runs natively (RSA_NO_PADDING); the padding is then checked without
 * branching on secret bytes, and a bad padding yields a random key of the expected length
 * (implicit rejection, RFC 3218 §2.3.2). The caller cannot tell a bad padding from a wrong key:
 * both surface later as a failed content decryption. Never asks for `--security-revert`.
 */
import { constants, privateDecrypt, type KeyObject } from 'node:crypto';
import { pooledRandomBytes } from '../random-pool.js';
import { withoutStackTraces } from '../quiet-key-checks.js';

/**
 * The content-encryption key of `keyLength` bytes in `encryptedKey`, or a random key of that
 * length when the block is not a valid PKCS#1 v1.5 encryption block carrying exactly that many
 * bytes. Throws only for failures that depend on public values (a ciphertext of the wrong size,
 * a key that is not RSA).
 */
export function decryptPkcs1v15KeyImplicit(
  privateKey: KeyObject,
  encryptedKey: Buffer,
  keyLength: number,
): Buffer {
  const modulusBits = privateKey.asymmetricKeyDetails?.modulusLength;
  if (privateKey.type !== 'private' || privateKey.asymmetricKeyType !== 'rsa' || !modulusBits) {
    throw new Error('key transport needs an RSA private key');
  }
  const k = Math.ceil(modulusBits / 8);
  // The ciphertext's length is public; the random fallback still avoids an exception path.
  if (encryptedKey.length !== k || keyLength < 1 || keyLength > k - 11) return pooledRandomBytes(keyLength);
  let block: Buffer;
  try {
    block = withoutStackTraces(() =>
      privateDecrypt({ key: privateKey, padding: constants.RSA_NO_PADDING }, encryptedKey),
    );
  } catch {
    // Only a ciphertext not below the modulus fails here, which depends on public values.
    return pooledRandomBytes(keyLength);
  }
  const fallback = pooledRandomBytes(keyLength);
  const key = unpadSelect(block, keyLength, fallback);
  block.fill(0);
  return key;
}

/**
 * 0x00 0x02 PS(≥ 8 non-zero bytes) 0x00 KEY(keyLength): every byte is visited, the verdict is
 * accumulated with arithmetic, and the result is chosen with a mask, not a branch.
 */
export function unpadSelect(block: Buffer, keyLength: number, fallback: Buffer): Buffer {
  const k = block.length;
  const separator = k - keyLength - 1;
  let bad = block[0]! | (block[1]! ^ 0x02);
  for (let i = 2; i < separator; i++) bad |= isZero(block[i]!);
  bad |= block[separator]!;
  // separator - 2 padding bytes, at least 8 (keyLength was bounded by the caller, this is belt and braces).
  bad |= (separator - 2 - 8) >>> 31;
  const badMask = -((bad | -bad) >>> 31) & 0xff; // 0xff when bad, 0x00 when good
  const out = Buffer.alloc(keyLength);
  for (let i = 0; i < keyLength; i++) {
    out[i] = (block[separator + 1 + i]! & ~badMask) | (fallback[i]! & badMask);
  }
  return out;
}

/** 1 when x (0..255) is zero, else 0, without a comparison. */
function isZero(x: number): number {
  return ((x - 1) >>> 8) & 1;
}
