// Covers pier's RC2-CBC decipher (pki/cms/rc2.ts) against `openssl enc` from OpenSSL's legacy provider: -rc2-cbc, -rc2-40-cbc and -rc2-64-cbc with explicit keys and IVs on random data from 0 bytes to 1 MiB decrypt to the same bytes when fed in uneven pieces, and a wrong key is refused (or, when its padding happens to look valid, gives other bytes).
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { Rc2CbcDecipher } from '../../pki/cms/rc2.js';
import { makeFixtures } from '../helpers/certificates.js';
import { decipherInPieces } from '../helpers/pieces.js';
import { writeFixture } from '../helpers/smime.js';

const fixtures = makeFixtures(t);

const legacy = ['-provider', 'legacy', '-provider', 'default'];

/** openssl's cipher name, its key length and its effective key bits. */
const ciphers = [
  ['rc2-cbc', 16, 128],
  ['rc2-40-cbc', 5, 40],
  ['rc2-64-cbc', 8, 64],
] as const;

const sizes = [0, 1, 7, 8, 9, 1000, 1024 * 1024 + 3];

function opensslEncrypt(cipher: string, key: Buffer, iv: Buffer, plaintext: Buffer): Buffer {
  writeFixture(fixtures, 'plain.bin', plaintext);
  fixtures.openssl(
    `enc -${cipher} -K ${key.toString('hex')} -iv ${iv.toString('hex')} -in plain.bin -out cipher.bin`,
    ...legacy,
  );
  return fixtures.read('cipher.bin');
}

/** Pieces of 1, 7, 8, 9, 4093, … bytes, so no piece boundary falls on a block boundary for long. */
const pieceSizes = [1, 7, 8, 9, 4093, 3, 65536 + 5];

t.test('what openssl enc encrypts with RC2 deciphers to the same bytes', async (t) => {
  for (const [cipher, keyBytes, bits] of ciphers) {
    for (const size of sizes) {
      const key = randomBytes(keyBytes);
      const iv = randomBytes(8);
      const plaintext = randomBytes(size);
      const ciphertext = opensslEncrypt(cipher, key, iv, plaintext);
      t.equal(ciphertext.length, (Math.floor(size / 8) + 1) * 8, `${cipher}, ${size} bytes: padded`);
      const deciphered = decipherInPieces(new Rc2CbcDecipher(key, bits, iv), ciphertext, pieceSizes);
      t.ok(deciphered.equals(plaintext), `${cipher}, ${size} bytes: the same plaintext`);
    }
  }
});

t.test('a wrong key is refused', async (t) => {
  for (const [cipher, keyBytes, bits] of ciphers) {
    for (const size of [0, 9, 1000]) {
      const key = randomBytes(keyBytes);
      const iv = randomBytes(8);
      const plaintext = randomBytes(size);
      const ciphertext = opensslEncrypt(cipher, key, iv, plaintext);
      const wrong = Buffer.from(key);
      wrong[0]! ^= 0x01;
      let deciphered: Buffer | null = null;
      try {
        deciphered = decipherInPieces(new Rc2CbcDecipher(wrong, bits, iv), ciphertext, pieceSizes);
      } catch (error) {
        t.match((error as Error).message, /bad decrypt/, `${cipher}, ${size} bytes: padding refused`);
      }
      // About one wrong key in 256 ends in a valid-looking padding; its bytes are still wrong.
      if (deciphered) t.notOk(deciphered.equals(plaintext), `${cipher}, ${size} bytes: other bytes`);
    }
  }
});
