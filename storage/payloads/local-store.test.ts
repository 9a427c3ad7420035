// Covers the local payload store's rule that a stage is written once: a second write of a stored stage (a redelivered message's receipt, say) is refused with EEXIST by every way of writing, and the stage stored first keeps its bytes; fileOf, which hands out a stored stage's own file for reading in place; and a stage kept deflated (putDeflated): read back as the document, not handed out as a file nor copied as one, written once too, and a damaged one an error on reading rather than wrong bytes.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { deflateSync } from 'node:zlib';
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
  t.equal(await readFile((await store.fileOf(ref))!, 'utf8'), 'document');
});

/** A document compressed as a partner's CompressedData holds it: a MIME entity, zlib. */
function deflatedOf(document: Buffer) {
  const headers = Buffer.from('Content-Type: application/edi-x12\r\n\r\n');
  const zlib = deflateSync(Buffer.concat([headers, document]));
  // In pieces, as a CMS structure may hold them.
  return { chunks: [zlib.subarray(0, 10), zlib.subarray(10)], skip: headers.length, size: document.length };
}

const readAll = async (stream: Readable) => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

t.test(
  'a stage kept deflated reads back as its document, and is no file to read in place or copy',
  async (t) => {
    const ref = { messageId: randomUUID(), stage: 'unpacked' as const };
    const document = Buffer.from('ISA*00*LINE~\n'.repeat(100_000));
    const deflated = deflatedOf(document);
    t.equal(await store.putDeflated(ref, deflated), document.length, "answers the document's size");
    t.ok(
      (await readFile(store.deflatedPathOf(ref))).length < 20_000,
      'what is written is the small zlib stream',
    );
    t.ok((await readAll(await store.open(ref))).equals(document), 'open gives the document byte for byte');
    t.equal(await store.fileOf(ref), null, 'fileOf: not a file of the document');
    t.equal(
      await store.copyToFile(ref, path.join(dir, `copy-${ref.messageId}`)),
      false,
      'copyToFile: not copied',
    );
    await t.rejects(store.putDeflated(ref, deflated), { code: 'EEXIST' }, 'written once');
    await t.rejects(store.open({ ...ref, stage: 'receipt' }), { name: 'PayloadMissing' });
    // Larger than is inflated in one call: inflated as it is read, a piece at a time.
    const large = Buffer.from('UNH+1+ORDERS:D:96A:UN\n'.repeat(300_000));
    const largeRef = { messageId: randomUUID(), stage: 'unpacked' as const };
    await store.putDeflated(largeRef, deflatedOf(large));
    const stream = await store.open(largeRef);
    let pieces = 0;
    stream.on('data', () => pieces++);
    t.ok((await readAll(stream)).equals(large), `${large.length} bytes read back byte for byte`);
    t.ok(pieces > 1, `read in ${pieces} pieces`);
  },
);

t.test('a damaged deflated stage is an error on reading, never other bytes', async (t) => {
  const document = Buffer.from('UNB+UNOC:3'.repeat(10_000));
  const cases: [string, (stored: Buffer) => Buffer][] = [
    ['its zlib stream cut short', (stored) => stored.subarray(0, stored.length - 8)],
    [
      "a size that is not the document's",
      (stored) => (stored.writeBigUInt64BE(stored.readBigUInt64BE(8) + 1n, 8), stored),
    ],
    ['no header', (stored) => stored.subarray(16)],
  ];
  const large = Buffer.from('UNB+UNOC:3'.repeat(600_000));
  for (const [label, damage, original] of cases.flatMap(([label, damage]) => [
    [label, damage, document] as const,
    [`${label}, read a piece at a time`, damage, large] as const,
  ])) {
    const ref = { messageId: randomUUID(), stage: 'unpacked' as const };
    await store.putDeflated(ref, deflatedOf(original));
    await writeFile(store.deflatedPathOf(ref), damage(await readFile(store.deflatedPathOf(ref))));
    await t.rejects(
      (async () => readAll(await store.open(ref)))(),
      { name: 'DeflatedStageDamaged' },
      `${label}: reading fails`,
    );
  }
});
