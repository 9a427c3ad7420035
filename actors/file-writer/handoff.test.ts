// Covers the file writer's side of a hand-off with real files: a document taken is named after its acceptance; a
// drop after a duplicate removes it; a drop after an acceptance that failed without an answer asks the database first
// (the delivery queued again when it was stored as delivered) and keeps the file while the database cannot say, asking again
// until it can (or leaving it for the writer's next start when it stops); a name taken, or one a document in hand will take, is declined.
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { LocalPayloadStore } from '../../storage/payloads/local-store.js';
import type { DeliveryPort } from '../shared/delivery-port.js';
import { HandoffTaker } from './handoff.js';
import { waitFor } from '../../test/helpers/wait.js';
import { temporaryDirectory } from './temporaries.js';
import { FileWriter } from './write.js';

const ids = [
  '00000000-0000-4000-8000-00000000000a',
  '00000000-0000-4000-8000-00000000000b',
  '00000000-0000-4000-8000-00000000000c',
] as const;

async function setUp(t: Test, requeue: (id: string, reason: string) => Promise<boolean>) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pier-handoff-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const writer = new FileWriter(
    {
      directory: dir,
      path_pattern: '{filename}',
      if_exists: 'fail',
      format: 'edi',
      max_concurrent_deliveries: 1,
    },
    new LocalPayloadStore(path.join(dir, '.store')),
  );
  const port = {
    requeueHanded: requeue,
    log: () => {},
    handedDelivered: () => {},
  } as unknown as DeliveryPort;
  return { dir, taker: new HandoffTaker(writer, dir, 1, port) };
}

const hand = (taker: HandoffTaker, id: string, name: string, text: string) =>
  taker.hand({
    type: 'hand',
    message: { id, from: 'alice', to: 'bob', file_name: name },
    payload: { stage: 'unpacked', size_bytes: text.length, content: Buffer.from(text).toString('base64') },
  });

t.test('taken, named; a second document for that name is declined', async (t) => {
  const { dir, taker } = await setUp(t, async () => true);
  t.same(await hand(taker, ids[0], 'order.edi', 'ISA*1~'), { taken: true, detail: 'Written to order.edi' });
  t.match(await hand(taker, ids[1], 'order.edi', 'ISA*2~'), { taken: false, reason: 'order.edi exists' });
  t.same(await taker.link({ message_id: ids[0], delivery_id: 7 }), { ok: true });
  t.equal(await readFile(path.join(dir, 'order.edi'), 'utf8'), 'ISA*1~');
  t.same(await readdir(temporaryDirectory(dir)), [], 'no temporary left');
});

t.test('a drop after a duplicate removes the file without asking', async (t) => {
  const asked: string[] = [];
  const { dir, taker } = await setUp(t, async (id) => (asked.push(id), true));
  await hand(taker, ids[0], 'dup.edi', 'ISA*1~');
  t.same(await taker.drop({ message_id: ids[0] }), { dropped: true });
  t.same(asked, []);
  t.same(await readdir(temporaryDirectory(dir)), []);
  t.notOk(existsSync(path.join(dir, 'dup.edi')));
});

t.test('a drop after an acceptance without an answer asks the database first', async (t) => {
  const asked: string[] = [];
  let answer: () => Promise<boolean> = async () => true;
  const { dir, taker } = await setUp(t, (id, reason) => (asked.push(`${id}: ${reason}`), answer()));
  await hand(taker, ids[0], 'maybe.edi', 'ISA*1~');
  await taker.drop({ message_id: ids[0], uncertain: true });
  t.same(
    asked,
    [`${ids[0]}: the acceptance answered no more after it was sent`],
    'queued again if it was stored',
  );
  t.same(
    await readdir(temporaryDirectory(dir)),
    [],
    'the file goes: the queued way writes it from the store',
  );

  answer = async () => {
    throw new Error('the database does not answer');
  };
  await hand(taker, ids[1], 'later.edi', 'ISA*2~');
  await taker.drop({ message_id: ids[1], uncertain: true });
  t.same(await readdir(temporaryDirectory(dir)), [`h-1-${ids[1]}.tmp`], 'kept while the database cannot say');
  // The acceptance may have committed (a failover that lost its answer): a delivery stored as
  // delivered must not wait for the writer's next start for its file.
  answer = async () => true;
  await waitFor(
    () => asked.filter((a) => a.startsWith(ids[1])).length === 2,
    'asked again once the database answers',
    10_000,
  );
  await waitFor(
    async () => (await readdir(temporaryDirectory(dir))).length === 0,
    'the file goes once the database said',
    5_000,
  );

  answer = async () => {
    throw new Error('the database does not answer');
  };
  await hand(taker, ids[2], 'stop.edi', 'ISA*3~');
  await taker.drop({ message_id: ids[2], uncertain: true });
  taker.stopping();
  t.same(
    await readdir(temporaryDirectory(dir)),
    [`h-1-${ids[2]}.tmp`],
    'a writer stopping keeps it for its next start, which asks again',
  );
});
