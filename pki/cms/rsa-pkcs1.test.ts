// Covers PKCS#1 v1.5 key transport decryption on every Node pier runs on (Node 20 and 22, on OpenSSL 3.0, refuse it without --security-revert; Node 24's OpenSSL 3.5 allows it): a valid block yields its key, every invalid one a random key of the expected length (implicit rejection), never an exception.
import { constants, generateKeyPairSync, privateDecrypt, publicEncrypt, randomBytes } from 'node:crypto';
import t from 'tap';
import { decryptPkcs1v15KeyImplicit, unpadSelect } from './rsa-pkcs1.js';

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const k = 256;
const key = randomBytes(16);

/** A raw RSA encryption of a block we lay out ourselves. */
function encryptBlock(block: Buffer): Buffer {
  return publicEncrypt({ key: publicKey, padding: constants.RSA_NO_PADDING }, block);
}

function block(
  options: { type?: number; zeroInPadding?: boolean; separator?: number; keyLength?: number } = {},
): Buffer {
  const keyLength = options.keyLength ?? 16;
  const out = Buffer.alloc(k);
  out[0] = 0;
  out[1] = options.type ?? 2;
  const padding = Buffer.from(randomBytes(k - 3 - keyLength).map((b) => b || 1));
  if (options.zeroInPadding) padding[20] = 0;
  padding.copy(out, 2);
  out[k - keyLength - 1] = options.separator ?? 0;
  randomBytes(keyLength).copy(out, k - keyLength);
  key.copy(out, k - 16);
  return out;
}

/** OpenSSL 3.2 brought implicit rejection into PKCS#1 v1.5 decryption: Node 24 has 3.5, Node 20 and 22 have 3.0. */
const [opensslMajor = 0, opensslMinor = 0] = process.versions.openssl.split('.').map(Number);
const opensslRejectsImplicitly = opensslMajor > 3 || (opensslMajor === 3 && opensslMinor >= 2);

t.test(
  'Node on OpenSSL 3.0 refuses PKCS#1 v1.5 private decryption, which is why this module exists',
  async (t) => {
    const ciphertext = publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_PADDING }, key);
    if (opensslRejectsImplicitly)
      t.same(
        privateDecrypt({ key: privateKey, padding: constants.RSA_PKCS1_PADDING }, ciphertext),
        key,
        `OpenSSL ${process.versions.openssl} decrypts it itself, with implicit rejection`,
      );
    else
      t.throws(
        () => privateDecrypt({ key: privateKey, padding: constants.RSA_PKCS1_PADDING }, ciphertext),
        /security-revert/,
        `Node ${process.versions.node} on OpenSSL ${process.versions.openssl} refuses it`,
      );
    t.same(
      decryptPkcs1v15KeyImplicit(privateKey, ciphertext, 16),
      key,
      'and the native RSA_NO_PADDING path reads it',
    );
  },
);

t.test('a valid block yields its key, also when built by hand', async (t) => {
  t.same(decryptPkcs1v15KeyImplicit(privateKey, encryptBlock(block()), 16), key);
});

t.test('invalid blocks yield a random key of the expected length, never an exception', async (t) => {
  const cases: [string, Buffer][] = [
    ['block type 1 (a signature block)', encryptBlock(block({ type: 1 }))],
    ['a zero byte inside the padding', encryptBlock(block({ zeroInPadding: true }))],
    ['no separator before the key', encryptBlock(block({ separator: 7 }))],
    ['a 24-byte key where 16 are expected', encryptBlock(block({ keyLength: 24 }))],
    ['a ciphertext of the wrong length', randomBytes(200)],
    ['a ciphertext not below the modulus', Buffer.alloc(k, 0xff)],
    ['random bytes', Buffer.concat([Buffer.from([0]), randomBytes(k - 1)])],
  ];
  for (const [label, ciphertext] of cases) {
    const first = decryptPkcs1v15KeyImplicit(privateKey, ciphertext, 16);
    const second = decryptPkcs1v15KeyImplicit(privateKey, ciphertext, 16);
    t.equal(first.length, 16, `${label}: right length`);
    t.notSame(first, key, `${label}: not the planted key`);
    t.notSame(first, second, `${label}: random each time`);
  }
  t.throws(
    () => decryptPkcs1v15KeyImplicit(publicKey, key, 16),
    /RSA private key/,
    'a public key is a programming error',
  );
});

t.test('unpadSelect picks the key or the fallback by mask', async (t) => {
  const fallback = Buffer.alloc(16, 0xaa);
  const good = block();
  t.same(unpadSelect(good, 16, fallback), key);
  const bad = Buffer.from(good);
  bad[1] = 3;
  t.same(unpadSelect(bad, 16, fallback), fallback);
  const shortPadding = Buffer.from(good);
  t.same(
    unpadSelect(shortPadding, k - 5, Buffer.alloc(k - 5, 1)),
    Buffer.alloc(k - 5, 1),
    'fewer than 8 padding bytes',
  );
});
