/**
 * The salt length of an RSASSA-PSS signature, read from the signature itself (RFC 8017 §9.1.2,
 * steps 1 to 10 of EMSA-PSS-VERIFY), as OpenSSL does when verifying with an automatic salt
 * length. Signers whose AlgorithmIdentifier does not say the salt length they used (pyas2lib
 * writes the parameters absent and signs with the maximum salt) are read with it; the signature
 * is then verified by node:crypto with that length, so nothing here decides that it is valid.
 */
import { constants, createHash, publicDecrypt, type KeyObject } from 'node:crypto';
import { micAlgorithms, type MicAlgorithm } from '../algorithms/mic-algorithms.js';
import { withoutStackTraces } from '../quiet-key-checks.js';

/** MGF1 (RFC 8017 B.2.1) over `seed`, `length` bytes long. */
function mgf1(nodeHash: string, seed: Buffer, length: number): Buffer {
  const blocks: Buffer[] = [];
  let produced = 0;
  for (let counter = 0; produced < length; counter++) {
    const block = createHash(nodeHash)
      .update(seed)
      .update(Buffer.from([counter >>> 24, (counter >>> 16) & 0xff, (counter >>> 8) & 0xff, counter & 0xff]))
      .digest();
    blocks.push(block);
    produced += block.length;
  }
  return Buffer.concat(blocks).subarray(0, length);
}

/**
 * The salt length of `signature` made by `key`'s private half with `digest` for hash and MGF1,
 * or null when the signature is no EMSA-PSS encoding under that hash (wrong key, another hash
 * or MGF, not a PSS signature at all).
 */
export function pssSaltLength(signature: Buffer, key: KeyObject, digest: MicAlgorithm): number | null {
  if (key.asymmetricKeyType !== 'rsa' && key.asymmetricKeyType !== 'rsa-pss') return null;
  const modulusBits = key.asymmetricKeyDetails?.modulusLength;
  if (!modulusBits) return null;
  let decoded: Buffer;
  try {
    // The raw RSA operation: s^e mod n, k bytes, without any padding check.
    decoded = withoutStackTraces(() => publicDecrypt({ key, padding: constants.RSA_NO_PADDING }, signature));
  } catch {
    return null;
  }
  const { nodeHash, digestBytes } = micAlgorithms[digest];
  const emBits = modulusBits - 1;
  const emLength = Math.ceil(emBits / 8);
  // When the modulus is 8n+1 bits long the encoding is one byte shorter than the modulus.
  const extra = decoded.length - emLength;
  if (extra < 0 || decoded.subarray(0, extra).some((b) => b !== 0)) return null;
  const em = decoded.subarray(extra);
  if (emLength < digestBytes + 2 || em[emLength - 1] !== 0xbc) return null;
  const dbLength = emLength - digestBytes - 1;
  const maskedDb = em.subarray(0, dbLength);
  const h = em.subarray(dbLength, dbLength + digestBytes);
  const unusedBits = 8 * emLength - emBits;
  if ((maskedDb[0]! & (0xff << (8 - unusedBits)) & 0xff) !== 0) return null;
  const mask = mgf1(nodeHash, h, dbLength);
  const db = Buffer.alloc(dbLength);
  for (let i = 0; i < dbLength; i++) db[i] = maskedDb[i]! ^ mask[i]!;
  db[0] = db[0]! & (0xff >>> unusedBits);
  // DB = PS (zeros) || 0x01 || salt.
  const separator = db.findIndex((b) => b !== 0);
  if (separator < 0 || db[separator] !== 0x01) return null;
  return dbLength - separator - 1;
}
