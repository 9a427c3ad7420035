// Covers the file writer's logic without a thread: atomic writes through the hidden .pier-tmp directory, leftovers removed, never replacing a file, the same bytes counting as delivered, rename on request, a missing payload, a large handed document written straight to the disk, and format json (the interchange's JSON form as <name>.json; a payload that is not EDI fails without retry and leaves nothing).
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import t from 'tap';
import type { ClaimedDelivery } from '../../protocol/core-protocol.js';
import { LocalPayloadStore } from '../../storage/payloads/local-store.js';
import { cachedBytes } from '../../test/helpers/page-cache.js';
import { retryDefaults } from '../shared/fields.js';
import type { FileWriterSettings } from './config.js';
import { removeStaleTemporaries, temporaryDirectory } from './temporaries.js';
import { FileWriter } from './write.js';
import { limits } from '../../limits/limits.js';

const dir = await mkdtemp(path.join(os.tmpdir(), 'pier-writer-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));
const store = new LocalPayloadStore(path.join(dir, 'store'));
const out = path.join(dir, 'out');
const settings = (ifExists: 'fail' | 'rename'): FileWriterSettings => ({
  directory: out,
  path_pattern: '{to}/{filename}',
  if_exists: ifExists,
  format: 'edi',
  max_concurrent_deliveries: 1,
  threads: 1,
  ...retryDefaults,
});

let deliveries = 0;
/** A claimed delivery whose payload is in the store, or kept inline (carried by the claim). */
async function delivery(
  content: string,
  fileName = 'order.edi',
  kept: 'store' | 'inline' = 'store',
): Promise<ClaimedDelivery> {
  const id = randomUUID();
  const bytes = Buffer.from(content);
  const size =
    kept === 'store'
      ? await store.put({ messageId: id, stage: 'unpacked' }, Readable.from([bytes]))
      : bytes.length;
  return {
    delivery_id: ++deliveries,
    claim: 1,
    attempt: 1,
    message: { id, from: 'acme', to: 'globex', file_name: fileName, direction: 'outbound' },
    payload: {
      stage: 'unpacked',
      size_bytes: size,
      ...(kept === 'inline' ? { content: bytes.toString('base64') } : {}),
    },
  };
}
const written = (name: string) => readFile(path.join(out, 'globex', name), 'utf8');
const hidden = async () => (await readdir(path.join(out, 'globex'))).filter((f) => f.startsWith('.'));

t.test('writes the file under its name, leaves no temporary file', async (t) => {
  const writer = new FileWriter(settings('fail'), store);
  t.match(await writer.deliver(await delivery('first')), { ok: true, detail: 'Written to globex/order.edi' });
  t.equal(await written('order.edi'), 'first');
  t.same(await hidden(), []);
});

t.test('an inline payload is written from the claim (the store has no copy of it)', async (t) => {
  const writer = new FileWriter(settings('fail'), store);
  const inline = await delivery('kept inline', 'inline.edi', 'inline');
  t.match(await writer.deliver(inline), { ok: true, detail: 'Written to globex/inline.edi' });
  t.equal(await written('inline.edi'), 'kept inline');
  t.same(await hidden(), []);
});

t.test('the same bytes already there count as delivered (a repeat after a crash)', async (t) => {
  const writer = new FileWriter(settings('fail'), store);
  t.match(await writer.deliver(await delivery('first')), {
    ok: true,
    detail: 'Already there: globex/order.edi',
  });
});

t.test('other content is never replaced: fail (retryable) or rename', async (t) => {
  const failing = new FileWriter(settings('fail'), store);
  t.same(await failing.deliver(await delivery('second')), {
    ok: false,
    retryable: true,
    error: 'globex/order.edi exists with other content',
  });
  t.equal(await written('order.edi'), 'first', 'untouched');
  const renaming = new FileWriter(settings('rename'), store);
  const d = await delivery('second');
  const outcome = await renaming.deliver(d);
  const name = `order.${d.message.id.slice(0, 8)}.edi`;
  t.same(outcome, { ok: true, detail: `Written to globex/${name}` });
  t.equal(await written(name), 'second');
  t.same(await hidden(), []);
});

t.test(
  'a payload missing from the store fails without retry; a removed directory is made again',
  async (t) => {
    const writer = new FileWriter(settings('fail'), store);
    const d = await delivery('gone', 'gone.edi');
    await store.removeMessage(d.message.id);
    t.match(await writer.deliver(d), { ok: false, retryable: false, error: /is not in the store/ });
    await writer.deliver(await delivery('x', 'x.edi'));
    await rm(path.join(out, 'globex'), { recursive: true });
    t.match(await writer.deliver(await delivery('y', 'y.edi')), { ok: true });
    t.equal(await written('y.edi'), 'y');
    await writeFile(path.join(dir, 'marker'), '');
  },
);

t.test('temporaries live in the hidden .pier-tmp directory, never beside the files', async (t) => {
  // A store whose copy blocks lets the test look at the directory while the file is written.
  let release!: () => void;
  const blocked = new Promise<void>((resolve) => (release = resolve));
  let copying!: () => void;
  const started = new Promise<void>((resolve) => (copying = resolve));
  const slowStore = Object.assign(Object.create(store) as LocalPayloadStore, {
    copyToFile: async (ref: Parameters<LocalPayloadStore['copyToFile']>[0], target: string) => {
      await writeFile(target, 'partial');
      copying();
      await blocked;
      await store.copyToFile(ref, `${target}.x`);
      await rename(`${target}.x`, target);
      return true;
    },
  });
  const writer = new FileWriter(settings('fail'), slowStore);
  const done = writer.deliver(await delivery('slow bytes', 'slow.edi'));
  await started;
  t.same(await hidden(), [], 'nothing hidden in the partner directory while writing');
  t.notOk((await readdir(path.join(out, 'globex'))).includes('slow.edi'), 'not there before it is complete');
  t.equal((await readdir(temporaryDirectory(out))).length, 1, 'the temporary is in .pier-tmp');
  release();
  t.match(await done, { ok: true });
  t.equal(await written('slow.edi'), 'slow bytes');
  t.same(await readdir(temporaryDirectory(out)), [], 'the temporary is gone');
});

t.test('a delivery claimed again removes the temporaries its earlier attempt left', async (t) => {
  const d = await delivery('again', 'again.edi');
  await mkdir(temporaryDirectory(out), { recursive: true });
  const leftover = path.join(temporaryDirectory(out), `${d.delivery_id}-deadbeef.tmp`);
  const other = path.join(temporaryDirectory(out), `${d.delivery_id + 1000}-deadbeef.tmp`);
  await writeFile(leftover, 'half');
  await writeFile(other, 'someone else');
  const writer = new FileWriter(settings('fail'), store);
  t.match(await writer.deliver({ ...d, attempt: 2 }), { ok: true });
  const left = await readdir(temporaryDirectory(out));
  t.notOk(left.includes(path.basename(leftover)), 'its own leftover is removed');
  t.ok(left.includes(path.basename(other)), "another delivery's temporary is left alone");
  await rm(other);
});

t.test('at start, leftovers older than the grace time are removed, recent ones kept', async (t) => {
  await mkdir(temporaryDirectory(out), { recursive: true });
  const old = path.join(temporaryDirectory(out), '7-00000000.tmp');
  const recent = path.join(temporaryDirectory(out), '8-00000000.tmp');
  await writeFile(old, 'crash');
  await writeFile(recent, 'in hand elsewhere');
  const past = new Date(Date.now() - limits.temporaryStaleAfterMs - 60_000);
  await utimes(old, past, past);
  t.equal(await removeStaleTemporaries(out), 1);
  t.same(await readdir(temporaryDirectory(out)), ['8-00000000.tmp']);
  t.equal(
    await removeStaleTemporaries(out, Date.now() + limits.temporaryStaleAfterMs + 60_000),
    1,
    'and later that one',
  );
  t.equal(await removeStaleTemporaries(path.join(dir, 'never-written')), 0, 'no directory: nothing to do');
});

t.test(
  'format json writes the JSON form as <name>.json; a payload that is not EDI fails without a retry',
  async (t) => {
    const writer = new FileWriter({ ...settings('fail'), format: 'json' }, store);
    const edi = "UNB+UNOC:3+A+B+261125:0930+1'UNH+1+ORDERS:D:96A:UN'BGM+220+PO-1+9'UNT+3+1'UNZ+1+1'";
    for (const kept of ['store', 'inline'] as const) {
      const name = `json-${kept}.edi`;
      t.match(await writer.deliver(await delivery(edi, name, kept)), {
        ok: true,
        detail: `Written to globex/${name}.json`,
      });
      const json = JSON.parse(await written(`${name}.json`)) as {
        messages: { segments: { tag: string; name?: string }[] }[];
      };
      t.match(json.messages[0]!.segments[0], { tag: 'BGM', name: 'Beginning of message' }, kept);
    }
    t.match(await writer.deliver(await delivery('not edi at all', 'notes.txt')), {
      ok: false,
      retryable: false,
      error:
        /^format json: the payload cannot be given as JSON: the document is not an X12 or EDIFACT interchange/,
    });
    t.same(
      (await readdir(path.join(out, 'globex'))).filter((f) => f.startsWith('notes')),
      [],
      'nothing written',
    );
    t.same(await hidden(), []);
  },
);

t.test('a large document handed over is written straight to the disk, whole', async (t) => {
  const writer = new FileWriter(settings('fail'), store);
  const temp = path.join(dir, 'handed.tmp');
  const document = randomBytes(1024 * 1024 + 123);
  await writer.writeTemp({ messageId: randomUUID(), stage: 'unpacked' }, undefined, temp, document);
  t.equal(cachedBytes(temp), 0, 'none of it in the page cache (storage/payloads/direct-write.ts)');
  t.ok((await readFile(temp)).equals(document), 'the same bytes, no padding');
});
