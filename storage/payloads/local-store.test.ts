// Covers the local payload store's rule that a stage is written once: a second write of a stored stage (a redelivered message's receipt, say) is refused with EEXIST by every way of writing, and the stage stored first keeps its bytes; and fileOf, which hands out a stored stage's own file for reading in place.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import t from 'tap';
import { LocalPayloadStore } from './local-store.js';

const dir = await mkdtemp(path.join(os.tmpdir(), 'pier-store-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));
const store = new LocalPayloadStore(path.join(dir, 'store'));
const source = path.join(dir, 'second.txt');
await writeFile(source, 'second');

const writes = {
  put: (ref: { messageId: string; stage: 'receipt' }) =>
    store.put(ref, Readable.from([Buffer.from('second')])),
  putBytes: (ref: { messageId: string; stage: 'receipt' }) => store.putBytes(ref, Buffer.from('second')),
  putFile: (ref: { messageId: string; stage: 'receipt' }) => store.putFile(ref, source),
};

for (const [name, write] of Object.entries(writes)) {
  t.test(`${name} does not replace or remove a stored stage`, async (t) => {
    const ref = { messageId: randomUUID(), stage: 'receipt' as const };
    t.equal(await store.putBytes(ref, Buffer.from('first')), 5);
    await t.rejects(write(ref), { code: 'EEXIST' }, 'the second write is refused');
    t.equal(await readFile(store.pathOf(ref), 'utf8'), 'first', 'the first bytes stay');
  });
}

t.test('fileOf names the file a stage is kept in, and refuses a stage not stored', async (t) => {
  const ref = { messageId: randomUUID(), stage: 'unpacked' as const };
  await t.rejects(store.fileOf(ref), { name: 'PayloadMissing' });
  await store.putBytes(ref, Buffer.from('document'));
  t.equal(await readFile(await store.fileOf(ref), 'utf8'), 'document');
});
