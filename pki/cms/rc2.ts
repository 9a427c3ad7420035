/**
 * RC2 (RFC 2268) in CBC mode with PKCS#7 padding, for the EnvelopedData old partners still send.
 * Node's OpenSSL 3 keeps RC2 in the legacy provider, which Node 20 does not load, and
 * node-forge's RC2 works on binary strings a byte at a time (98–120 s for 1.5 MiB), so
 * pier has its own: 16-bit words in local variables, blocks read straight from the Buffer.
 * Only decryption is used in production; encryptEcbBlock exists for the RFC's test vectors.
 */

/** RFC 2268 §2: PITABLE, a permutation of 0..255 derived from the digits of pi. */
const piTable = Uint8Array.from(
  [
    'd9 78 f9 c4 19 dd b5 ed 28 e9 fd 79 4a a0 d8 9d',
    'c6 7e 37 83 2b 76 53 8e 62 4c 64 88 44 8b fb a2',
    '17 9a 59 f5 87 b3 4f 13 61 45 6d 8d 09 81 7d 32',
    'bd 8f 40 eb 86 b7 7b 0b f0 95 21 22 5c 6b 4e 82',
    '54 d6 65 93 ce 60 b2 1c 73 56 c0 14 a7 8c f1 dc',
    '12 75 ca 1f 3b be e4 d1 42 3d d4 30 a3 3c b6 26',
    '6f bf 0e da 46 69 07 57 27 f2 1d 9b bc 94 43 03',
    'f8 11 c7 f6 90 ef 3e e7 06 c3 d5 2f c8 66 1e d7',
    '08 e8 ea de 80 52 ee f7 84 aa 72 ac 35 4d 6a 2a',
    '96 1a d2 71 5a 15 49 74 4b 9f d0 5e 04 18 a4 ec',
    'c2 e0 41 6e 0f 51 cb cc 24 91 af 50 a1 f4 70 39',
    '99 7c 3a 85 23 b8 b4 7a fc 02 36 5b 25 55 97 31',
    '2d 5d fa 98 e3 8a 92 ae 05 df 29 10 67 6c ba c9',
    'd3 00 e6 cf e1 9e a8 2c 63 16 01 3f 58 e2 89 a9',
    '0d 38 34 1b ab 33 ff b0 bb 48 0c 5f b9 b1 cd 2e',
    'c5 f3 db 47 e5 a5 9c 77 0a a6 20 68 fe 7f c1 ad',
  ]
    .join(' ')
    .split(' '),
  (hex) => parseInt(hex, 16),
);

const blockBytes = 8;

/**
 * RFC 2268 §2 key expansion: the 64 16-bit subkeys K[0..63] for a key of 1 to 128 bytes whose
 * strength is cut to `effectiveBits` (T1, 1 to 1024; CMS says which in RC2-CBC-Parameter).
 */
export function expandKey(key: Uint8Array, effectiveBits: number): Uint16Array {
  if (key.length < 1 || key.length > 128) throw new RangeError(`RC2 key of ${key.length} bytes`);
  if (!Number.isInteger(effectiveBits) || effectiveBits < 1 || effectiveBits > 1024)
    throw new RangeError(`RC2 effective key bits ${effectiveBits}`);
  const l = new Uint8Array(128);
  l.set(key);
  const t = key.length;
  for (let i = t; i < 128; i++) l[i] = piTable[(l[i - 1]! + l[i - t]!) & 0xff]!;
  // Reduce the effective key to T1 bits: the last T8 bytes are masked, then pushed back down.
  const t8 = (effectiveBits + 7) >> 3;
  const tm = 0xff >> (8 * t8 - effectiveBits);
  l[128 - t8] = piTable[l[128 - t8]! & tm]!;
  for (let i = 127 - t8; i >= 0; i--) l[i] = piTable[l[i + 1]! ^ l[i + t8]!]!;
  const k = new Uint16Array(64);
  for (let i = 0; i < 64; i++) k[i] = l[2 * i]! | (l[2 * i + 1]! << 8);
  l.fill(0);
  return k;
}

/**
 * Decrypts one 8-byte block of `input` at `from` into `output` at `to` (they may be the same
 * place), then XORs it with `chain` (the previous ciphertext block, or the IV) for CBC: RFC 2268
 * §4, five mixing rounds, a mashing round, six mixing, a mashing, five mixing, each undone.
 */
function decryptBlock(
  k: Uint16Array,
  input: Uint8Array,
  from: number,
  output: Uint8Array,
  to: number,
  chain: Uint8Array,
  chainAt: number,
): void {
  let r0 = input[from]! | (input[from + 1]! << 8);
  let r1 = input[from + 2]! | (input[from + 3]! << 8);
  let r2 = input[from + 4]! | (input[from + 5]! << 8);
  let r3 = input[from + 6]! | (input[from + 7]! << 8);
  let j = 63;
  for (let round = 0; round < 16; round++) {
    if (round === 5 || round === 11) {
      // Reverse mashing round: R[i] -= K[R[i-1] & 63], for i = 3 down to 0.
      r3 = (r3 - k[r2 & 63]!) & 0xffff;
      r2 = (r2 - k[r1 & 63]!) & 0xffff;
      r1 = (r1 - k[r0 & 63]!) & 0xffff;
      r0 = (r0 - k[r3 & 63]!) & 0xffff;
    }
    // Reverse mixing round: rotate right by s[i] = 5, 3, 2, 1, then take back what was added.
    r3 = ((r3 >>> 5) | (r3 << 11)) & 0xffff;
    r3 = (r3 - k[j--]! - (r2 & r1) - (~r2 & r0)) & 0xffff;
    r2 = ((r2 >>> 3) | (r2 << 13)) & 0xffff;
    r2 = (r2 - k[j--]! - (r1 & r0) - (~r1 & r3)) & 0xffff;
    r1 = ((r1 >>> 2) | (r1 << 14)) & 0xffff;
    r1 = (r1 - k[j--]! - (r0 & r3) - (~r0 & r2)) & 0xffff;
    r0 = ((r0 >>> 1) | (r0 << 15)) & 0xffff;
    r0 = (r0 - k[j--]! - (r3 & r2) - (~r3 & r1)) & 0xffff;
  }
  r0 ^= chain[chainAt]! | (chain[chainAt + 1]! << 8);
  r1 ^= chain[chainAt + 2]! | (chain[chainAt + 3]! << 8);
  r2 ^= chain[chainAt + 4]! | (chain[chainAt + 5]! << 8);
  r3 ^= chain[chainAt + 6]! | (chain[chainAt + 7]! << 8);
  output[to] = r0;
  output[to + 1] = r0 >>> 8;
  output[to + 2] = r1;
  output[to + 3] = r1 >>> 8;
  output[to + 4] = r2;
  output[to + 5] = r2 >>> 8;
  output[to + 6] = r3;
  output[to + 7] = r3 >>> 8;
}

/** RFC 2268 §3: encrypts one 8-byte block (ECB). Only the tests use it. */
export function encryptEcbBlock(k: Uint16Array, block: Uint8Array): Uint8Array {
  let r0 = block[0]! | (block[1]! << 8);
  let r1 = block[2]! | (block[3]! << 8);
  let r2 = block[4]! | (block[5]! << 8);
  let r3 = block[6]! | (block[7]! << 8);
  let j = 0;
  for (let round = 0; round < 16; round++) {
    r0 = (r0 + k[j++]! + (r3 & r2) + (~r3 & r1)) & 0xffff;
    r0 = ((r0 << 1) | (r0 >>> 15)) & 0xffff;
    r1 = (r1 + k[j++]! + (r0 & r3) + (~r0 & r2)) & 0xffff;
    r1 = ((r1 << 2) | (r1 >>> 14)) & 0xffff;
    r2 = (r2 + k[j++]! + (r1 & r0) + (~r1 & r3)) & 0xffff;
    r2 = ((r2 << 3) | (r2 >>> 13)) & 0xffff;
    r3 = (r3 + k[j++]! + (r2 & r1) + (~r2 & r0)) & 0xffff;
    r3 = ((r3 << 5) | (r3 >>> 11)) & 0xffff;
    if (round === 4 || round === 10) {
      r0 = (r0 + k[r3 & 63]!) & 0xffff;
      r1 = (r1 + k[r0 & 63]!) & 0xffff;
      r2 = (r2 + k[r1 & 63]!) & 0xffff;
      r3 = (r3 + k[r2 & 63]!) & 0xffff;
    }
  }
  return Uint8Array.of(r0, r0 >>> 8, r1, r1 >>> 8, r2, r2 >>> 8, r3, r3 >>> 8);
}

/** Decrypts one ECB block; for the RFC's test vectors. */
export function decryptEcbBlock(k: Uint16Array, block: Uint8Array): Uint8Array {
  const out = new Uint8Array(blockBytes);
  decryptBlock(k, block, 0, out, 0, Buffer.alloc(blockBytes), 0);
  return out;
}

/**
 * RC2-CBC decryption fed in pieces of any size, shaped like content-encryption's
 * ContentDecipher. update() answers the whole blocks it can, always holding back at least one
 * byte (at most the last block) because the last block carries the padding; final() checks
 * and strips the PKCS#7 padding and throws when it is wrong, which is how a wrong key shows.
 */
export class Rc2CbcDecipher {
  readonly #k: Uint16Array;
  // Buffers like the pieces, so the block function only ever sees one kind of array.
  /** The previous ciphertext block, starting with the IV. */
  readonly #chain = Buffer.alloc(blockBytes);
  /** Ciphertext not yet deciphered: 0 to 8 bytes. */
  readonly #held = Buffer.alloc(blockBytes);
  #heldBytes = 0;
  #finished = false;

  constructor(key: Uint8Array, effectiveBits: number, iv: Uint8Array) {
    if (iv.length !== blockBytes) throw new RangeError(`RC2 IV of ${iv.length} bytes`);
    this.#k = expandKey(key, effectiveBits);
    this.#chain.set(iv);
  }

  update(piece: Buffer): Buffer {
    if (this.#finished) throw new Error('RC2 decipher used after final()');
    const total = this.#heldBytes + piece.length;
    // Blocks to decipher now: all but the last, which may be the padded one, or a partial one.
    const blocks = total === 0 ? 0 : Math.floor((total - 1) / blockBytes);
    const out = Buffer.allocUnsafe(blocks * blockBytes);
    if (blocks === 0) {
      this.#held.set(piece, this.#heldBytes);
      this.#heldBytes = total;
      return out;
    }
    let at = 0; // next unread byte of piece
    let written = 0;
    if (this.#heldBytes > 0) {
      at = blockBytes - this.#heldBytes;
      this.#held.set(piece.subarray(0, at), this.#heldBytes);
      decryptBlock(this.#k, this.#held, 0, out, 0, this.#chain, 0);
      this.#chain.set(this.#held);
      written = blockBytes;
    }
    // Within the piece, each block's chain value is the ciphertext block just before it.
    let chain: Uint8Array = this.#chain;
    let chainAt = 0;
    for (; written < out.length; written += blockBytes, at += blockBytes) {
      decryptBlock(this.#k, piece, at, out, written, chain, chainAt);
      chain = piece;
      chainAt = at;
    }
    if (chain === piece) this.#chain.set(piece.subarray(chainAt, chainAt + blockBytes));
    this.#held.set(piece.subarray(at));
    this.#heldBytes = piece.length - at;
    return out;
  }

  final(): Buffer {
    if (this.#finished) throw new Error('RC2 decipher used after final()');
    this.#finished = true;
    try {
      if (this.#heldBytes !== blockBytes) throw new Error('RC2: wrong final block length');
      const last = Buffer.allocUnsafe(blockBytes);
      decryptBlock(this.#k, this.#held, 0, last, 0, this.#chain, 0);
      const pad = last[blockBytes - 1]!;
      let bad = pad === 0 || pad > blockBytes ? 1 : 0;
      for (let i = blockBytes - Math.min(pad, blockBytes); i < blockBytes; i++) bad |= last[i]! ^ pad;
      if (bad) throw new Error('RC2: bad decrypt (padding check failed)');
      return last.subarray(0, blockBytes - pad);
    } finally {
      this.#k.fill(0);
      this.#held.fill(0);
    }
  }
}
