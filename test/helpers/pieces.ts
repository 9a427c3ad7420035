/** Feeding a decipher in pieces of uneven sizes, as a socket or a file stream gives them. */

interface Decipher {
  update(piece: Buffer): Buffer;
  final(): Buffer;
}

/**
 * Deciphers `ciphertext` fed in pieces of the given sizes, taken in turn (so block and piece
 * boundaries drift apart), then final(); the plaintext joined.
 */
export function decipherInPieces(decipher: Decipher, ciphertext: Buffer, sizes: readonly number[]): Buffer {
  const out: Buffer[] = [];
  for (let at = 0, n = 0; at < ciphertext.length; n++) {
    const size = sizes[n % sizes.length]!;
    out.push(decipher.update(ciphertext.subarray(at, at + size)));
    at += size;
  }
  out.push(decipher.final());
  return Buffer.concat(out);
}
