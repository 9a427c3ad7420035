// Covers secrets at rest: sealing round trip, tamper detection, and the generated key file
// (mode 0600, kept across starts, one key when two processes start at once).
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { loadSecretBox, SecretBox } from './secret-box.js';

t.test('sealed values open with the same key only, and tampering is detected', async (t) => {
  const box = SecretBox.fromText('key one');
  const sealed = box.seal('hunter2');
  t.notMatch(sealed, /hunter2/);
  t.equal(box.openText(sealed), 'hunter2');
  t.not(box.seal('hunter2'), sealed, 'a fresh IV each time');
  t.throws(() => SecretBox.fromText('key two').open(sealed), {
    message: 'A stored secret cannot be decrypted: PIER_SECRET_KEY or the key file has changed',
  });
  const parts = sealed.split(':');
  const flipped = Buffer.from(parts[3]!, 'base64');
  flipped[0]! ^= 1;
  parts[3] = flipped.toString('base64');
  t.throws(() => box.open(parts.join(':')), /cannot be decrypted/);
  t.throws(() => box.open('plain text'), { message: 'Not a sealed secret' });
});

t.test('without PIER_SECRET_KEY a 0600 key file is made once and reused', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pier-key-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const [a, b] = await Promise.all([loadSecretBox(dir, undefined), loadSecretBox(dir, undefined)]);
  const file = path.join(dir, 'secret.key');
  t.equal((await stat(file)).mode & 0o777, 0o600);
  const sealed = a.seal('x');
  t.equal(b.openText(sealed), 'x', 'two processes starting together share one key');
  const later = await loadSecretBox(dir, undefined);
  t.equal(later.openText(sealed), 'x', 'the next start reads the same key');
  t.match((await readFile(file, 'utf8')).trim(), /^[A-Za-z0-9+/]{43}=$/);
  const fromEnv = await loadSecretBox(dir, 'from the environment');
  t.throws(() => fromEnv.open(sealed), 'PIER_SECRET_KEY wins over the file');
});
