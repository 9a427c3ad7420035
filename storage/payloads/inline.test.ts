// Covers where a stage is kept: bytes and streams up to 64 KiB are kept inline (base64, nothing written to the store), one byte more goes to the store whole (a stream's first part read into memory and the rest streamed after it); a size limit below the inline one still refuses; a failing source leaves nothing; and openKept reads either kind.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import t from 'tap';
import { inlineBytes, keepBytes, keepStream, openKept } from './inline.js';
import { LocalPayloadStore } from './local-store.js';
import { limits } from '../../limits/limits.js';

const dir = await mkdtemp(path.join(os.tmpdir(), 'pier-inline-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));
const store = new LocalPayloadStore(path.join(dir, 'store'));
const ref = () => ({ messageId: randomUUID(), stage: 'unpacked' as const });
const inStore = async () => readdir(store.directory).catch((): string[] => []);

/** Bytes that differ from place to place, so a reordered or lost chunk shows. */
function bytesOf(size: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = (i * 31 + (i >> 9)) & 0xff;
  return b;
}

/** A stream of `bytes` in uneven chunks, as a socket gives them. */
const chunked = (bytes: Buffer) =>
  Readable.from(
    (function* () {
      for (let at = 0, n = 1; at < bytes.length; at += n, n = (n * 3 + 7) % 20_000)
        yield bytes.subarray(at, at + n);
    })(),
  );

const readAll = async (stream: Readable) => Buffer.concat(await stream.toArray());

for (const keep of ['keepBytes', 'keepStream'] as const) {
  t.test(`${keep}: up to ${limits.inlineMaxBytes} bytes inline, one more in the store`, async (t) => {
    for (const size of [
      0,
      1,
      limits.inlineMaxBytes - 1,
      limits.inlineMaxBytes,
      limits.inlineMaxBytes + 1,
      300_000,
    ]) {
      const bytes = bytesOf(size);
      const r = ref();
      const kept =
        keep === 'keepBytes' ? await keepBytes(store, r, bytes) : await keepStream(store, r, chunked(bytes));
      t.equal(kept.size_bytes, size, `${size}: size`);
      const inline = size <= limits.inlineMaxBytes;
      t.equal(kept.content !== undefined, inline, `${size}: ${inline ? 'inline' : 'not inline'}`);
      t.equal((await inStore()).includes(r.messageId), !inline, `${size}: ${inline ? 'no file' : 'a file'}`);
      if (inline) t.ok(inlineBytes(kept.content!).equals(bytes), `${size}: the inline bytes`);
      else t.ok((await readFile(store.pathOf(r))).equals(bytes), `${size}: the stored bytes, in order`);
      t.ok((await readAll(await openKept(store, r, kept.content))).equals(bytes), `${size}: read back`);
    }
  });
}

t.test('keepStream refuses a stream over maxBytes, below or above the inline size', async (t) => {
  for (const [size, maxBytes] of [
    [101, 100],
    [limits.inlineMaxBytes + 10, limits.inlineMaxBytes + 5],
  ] as const) {
    const r = ref();
    await t.rejects(keepStream(store, r, chunked(bytesOf(size)), { maxBytes }), { name: 'PayloadTooLarge' });
    await t.rejects(readFile(store.pathOf(r)), { code: 'ENOENT' }, `${size} over ${maxBytes}: nothing kept`);
  }
  t.equal(
    (await keepStream(store, ref(), chunked(bytesOf(100)), { maxBytes: 100 })).size_bytes,
    100,
    'exactly the limit is taken',
  );
});

t.test('a source that fails is reported and leaves no stage', async (t) => {
  for (const before of [10, limits.inlineMaxBytes + 10]) {
    const r = ref();
    const failing = Readable.from(
      (async function* () {
        yield bytesOf(before);
        throw new Error('connection reset');
      })(),
    );
    await t.rejects(keepStream(store, r, failing), /connection reset/);
    await t.rejects(readFile(store.pathOf(r)), { code: 'ENOENT' }, `${before}: no stage file`);
  }
});

t.test('openKept reads the store when there is no inline content', async (t) => {
  const r = ref();
  await t.rejects(openKept(store, r, null), { name: 'PayloadMissing' });
  await store.putBytes(r, Buffer.from('stored'));
  t.equal((await readAll(await openKept(store, r, undefined))).toString(), 'stored');
});
