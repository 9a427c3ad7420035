// Covers the node:crypto calls made without stack traces: a cipher key as a KeyObject deciphers what its bytes do and is refused for the same wrong lengths; stack traces are off only while the call runs, back after it returns or throws, and the error it throws keeps its message.
import t from 'tap';
import {
  constants,
  createCipheriv,
  createDecipheriv,
  generateKeyPairSync,
  privateDecrypt,
  randomBytes,
} from 'node:crypto';
import { cipherKey, withoutStackTraces } from './quiet-key-checks.js';

t.test(
  'a cipher key as a KeyObject deciphers what the same bytes do, and a wrong length is refused',
  async (t) => {
    const key = randomBytes(32);
    const iv = randomBytes(16);
    const plain = Buffer.from('UNB+UNOC:3+ALICE:14+BOB:14+261128:1200+1');
    const cipher = createCipheriv('aes-256-cbc', cipherKey(key), iv);
    const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
    const withBytes = createDecipheriv('aes-256-cbc', key, iv);
    t.same(
      Buffer.concat([withBytes.update(sealed), withBytes.final()]),
      plain,
      'bytes open what the KeyObject sealed',
    );
    const withObject = createDecipheriv('aes-256-cbc', cipherKey(key), iv);
    t.same(Buffer.concat([withObject.update(sealed), withObject.final()]), plain);
    t.throws(() => createDecipheriv('aes-256-cbc', cipherKey(randomBytes(16)), iv), /key length/i);
  },
);

t.test('stack traces are off while the call runs and back after it returns or throws', async (t) => {
  const before = Error.stackTraceLimit;
  const inside = withoutStackTraces(() => ({
    limit: Error.stackTraceLimit,
    stack: new Error('made inside').stack,
  }));
  t.equal(inside.limit, 0);
  t.equal(inside.stack, 'Error: made inside', 'an error made inside has no frames');
  t.equal(Error.stackTraceLimit, before, 'back after a return');

  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const tooLong = Buffer.alloc(257, 0xff);
  const thrown = t.throws(() =>
    withoutStackTraces(() => privateDecrypt({ key: privateKey, padding: constants.RSA_NO_PADDING }, tooLong)),
  ) as Error;
  t.ok(thrown.message.length > 0, `the call's own error keeps its message: ${thrown.message}`);
  t.equal(Error.stackTraceLimit, before, 'back after a throw');
});
