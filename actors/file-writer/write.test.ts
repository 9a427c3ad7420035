// Covers the file writer's logic without a thread: atomic writes, never replacing a file, the same bytes counting as delivered, rename on request, a missing payload.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import t from 'tap';
import type { ClaimedDelivery } from '../../protocol/core-protocol.js';
import { LocalPayloadStore } from '../../storage/payloads/local-store.js';
import type { FileWriterSettings } from './config.js';
import { FileWriter } from './write.js';

const dir = await mkdtemp(path.join(os.tmpdir(), 'pier-writer-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));
const store = new LocalPayloadStore(path.join(dir, 'store'));
const out = path.join(dir, 'out');
const settings = (ifExists: 'fail' | 'rename'): FileWriterSettings => ({
  directory: out,
  path_pattern: '{to}/{filename}',
  if_exists: ifExists,
  max_concurrent_deliveries: 1,
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
