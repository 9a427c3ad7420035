// Covers writing a large document straight to the disk (direct-write.ts): the file holds exactly the document whatever its length (one piece or several, a whole number of blocks or not), none of it is left in the page cache (read with util-linux's fincore), many at once share the few aligned buffers, the local payload store writes a large stage so, and without WebAssembly (node --jitless) writes it the usual way (the file writer's handed documents: actors/file-writer/write.test.ts). os.tmpdir() must be on a disk (ext4 here), not tmpfs, whose files are the page cache.
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { closeSync, fdatasyncSync, openSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { cachedBytes } from '../../test/helpers/page-cache.js';
import { writeDirect } from './direct-write.js';
import { LocalPayloadStore } from './local-store.js';
import { limits } from '../../limits/limits.js';

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
  'the smallest written direct': limits.directMinBytes,
  'one byte past a block': limits.directMinBytes + 1,
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

t.test('without WebAssembly (node --jitless) a large stage is written the usual way, whole', async (t) => {
  // The aligned buffers are WebAssembly memories; a Node run without them must still store documents.
  const file = path.join(dir, 'jitless-store');
  const script = [
    `import { LocalPayloadStore } from ${JSON.stringify(path.join(import.meta.dirname, 'local-store.ts'))};`,
    `const store = new LocalPayloadStore(${JSON.stringify(file)});`,
    `const ref = { messageId: '${randomUUID()}', stage: 'unpacked' };`,
    `const bytes = Buffer.alloc(${mib + 9}, 'ISA*00~');`,
    `await store.putBytes(ref, bytes);`,
    `console.log(JSON.stringify({ wasm: typeof WebAssembly, path: store.pathOf(ref) }));`,
  ].join('\n');
  const out = execFileSync(
    process.execPath,
    ['--jitless', '--import', 'tsx', '--input-type=module', '-e', script],
    {
      encoding: 'utf8',
    },
  );
  const { wasm, path: stage } = JSON.parse(out.trim().split('\n').at(-1)!) as { wasm: string; path: string };
  t.equal(wasm, 'undefined', 'the child had no WebAssembly');
  t.ok((await readFile(stage)).equals(Buffer.alloc(mib + 9, 'ISA*00~')), 'the stage holds the document');
  t.ok(cachedBytes(stage) > 0, 'written through the page cache');
});
