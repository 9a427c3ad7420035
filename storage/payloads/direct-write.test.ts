// Covers writing a large document straight to the disk (direct-write.ts): the file holds exactly the document whatever its length (one piece or several, a whole number of blocks or not), none of it is left in the page cache (read with util-linux's fincore), many at once share the few aligned buffers, and the local payload store writes a large stage so (the file writer's handed documents: actors/file-writer/write.test.ts). os.tmpdir() must be on a disk (ext4 here), not tmpfs, whose files are the page cache.
import { randomBytes, randomUUID } from 'node:crypto';
import { closeSync, fdatasyncSync, openSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { cachedBytes } from '../../test/helpers/page-cache.js';
import { directMinBytes, writeDirect } from './direct-write.js';
import { LocalPayloadStore } from './local-store.js';

const dir = await mkdtemp(path.join(os.tmpdir(), 'pier-direct-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));

let files = 0;
/** Creates a file, writes `bytes` into it direct and flushes it, as the writers do. */
async function written(bytes: Uint8Array): Promise<{ file: string; direct: boolean }> {
  const file = path.join(dir, `document-${++files}`);
  const fd = openSync(file, 'wx');
  try {
    const direct = await writeDirect(file, bytes);
    fdatasyncSync(fd);
    return { file, direct };
  } finally {
    closeSync(fd);
  }
}

const mib = 1024 * 1024;
const lengths = {
  'the smallest written direct': directMinBytes,
  'one byte past a block': directMinBytes + 1,
  'two pieces, the last one padded': mib + 123,
  'four pieces, whole blocks': 3 * mib + 3 * 4096,
};

for (const [name, length] of Object.entries(lengths)) {
  t.test(`${name} (${length} bytes): the file holds the document, none of it cached`, async (t) => {
    const document = randomBytes(length);
    const { file, direct } = await written(document);
    t.ok(direct, 'written direct');
    t.equal(cachedBytes(file), 0, 'not in the page cache');
    t.ok((await readFile(file)).equals(document), 'the same bytes, no padding');
  });
}

t.test('ten at once share the aligned buffers, and each file holds its own document', async (t) => {
  const documents = Array.from({ length: 10 }, () => randomBytes(mib + 7));
  const results = await Promise.all(documents.map((d) => written(d)));
  t.same(
    results.map((r) => r.direct),
    documents.map(() => true),
  );
  for (const [i, { file }] of results.entries())
    t.ok((await readFile(file)).equals(documents[i]!), `document ${i + 1} as written`);
});

t.test('the local store writes a large stage direct, a small one through the page cache', async (t) => {
  const store = new LocalPayloadStore(path.join(dir, 'store'));
  const large = { messageId: randomUUID(), stage: 'unpacked' as const };
  const small = { messageId: randomUUID(), stage: 'unpacked' as const };
  const document = randomBytes(2 * mib + 5);
  t.equal(await store.putBytes(large, document), document.length);
  await store.putBytes(small, Buffer.from('ISA*00~'));
  t.equal(cachedBytes(store.pathOf(large)), 0, 'the large stage is not in the page cache');
  t.ok(cachedBytes(store.pathOf(small)) > 0, 'the small one is');
  t.ok((await readFile(store.pathOf(large))).equals(document), 'the large stage reads back whole');
});
