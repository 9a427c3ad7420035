// Covers the file writer's side of a hand-off with real files: a document taken is named after its acceptance, and only
// then recorded delivered ("Written to …"), named files recorded together (those of a moment, and those named while a
// record is under way); a
// drop after a duplicate removes it; a drop after an acceptance that failed without an answer asks the database first
// (the delivery queued again when it was stored as delivered) and keeps the file while the database cannot say, asking again
// until it can (or leaving it for the writer's next start when it stops); a name taken, or one a document in hand will take, is declined;
// the handed files nobody holds are resolved by what the database says of their deliveries: this node's at start, another
// node's once older than a failover's wait (a live node's stay), this node's that the start could not resolve at the next
// sweep, each file gone once its delivery is queued or settled.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { LocalPayloadStore } from '../../storage/payloads/local-store.js';
import type { DeliveryPort } from '../shared/delivery-port.js';
import { retryDefaults } from '../shared/fields.js';
import { HandoffTaker } from './handoff.js';
import { waitFor } from '../../test/helpers/wait.js';
import { temporaryDirectory } from './temporaries.js';
import { FileWriter } from './write.js';
import { limits } from '../../limits/limits.js';

const ids = [
  '00000000-0000-4000-8000-00000000000a',
  '00000000-0000-4000-8000-00000000000b',
  '00000000-0000-4000-8000-00000000000c',
] as const;

async function setUp(
  t: Test,
  requeue: (id: string, reason: string) => Promise<boolean>,
  more: Partial<DeliveryPort> = {},
) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pier-handoff-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const writer = new FileWriter(
    {
      directory: dir,
      path_pattern: '{filename}',
      if_exists: 'fail',
      format: 'edi',
      max_concurrent_deliveries: 1,
      threads: 1,
      ...retryDefaults,
    },
    new LocalPayloadStore(path.join(dir, '.store')),
  );
  const recorded: { delivery_id: number; detail: string }[][] = [];
  const port = {
    requeueHanded: requeue,
    log: () => {},
    recordHanded: async (named: { delivery_id: number; detail: string }[]) => {
      recorded.push([...named]);
      return named.map(() => true);
    },
    ...more,
  } as unknown as DeliveryPort;
  return { dir, recorded, taker: new HandoffTaker(writer, dir, 1, port) };
}

const hand = (taker: HandoffTaker, id: string, name: string, text: string) =>
  taker.hand({
    type: 'hand',
    message: { id, from: 'alice', to: 'bob', file_name: name },
    payload: { stage: 'unpacked', size_bytes: text.length, content: Buffer.from(text).toString('base64') },
  });

t.test('taken, named, then recorded delivered; a second document for that name is declined', async (t) => {
  const { dir, recorded, taker } = await setUp(t, async () => true);
  t.same(await hand(taker, ids[0], 'order.edi', 'ISA*1~'), { taken: true, detail: 'Writing order.edi' });
  t.match(await hand(taker, ids[1], 'order.edi', 'ISA*2~'), { taken: false, reason: 'order.edi exists' });
  t.same(await taker.link({ message_id: ids[0], delivery_id: 7 }), { ok: true });
  t.equal(await readFile(path.join(dir, 'order.edi'), 'utf8'), 'ISA*1~');
  t.same(await readdir(temporaryDirectory(dir)), [], 'no temporary left');
  await waitFor(() => recorded.length === 1, 'recorded');
  t.same(
    recorded,
    [[{ delivery_id: 7, detail: 'Written to order.edi' }]],
    'recorded once the file has its name',
  );
});

t.test('files named while a record is under way are recorded together, after it', async (t) => {
  let release: () => void = () => {};
  const recorded: number[][] = [];
  const { taker } = await setUp(t, async () => true, {
    recordHanded: async (named: readonly { delivery_id: number }[]) => {
      recorded.push(named.map((n) => n.delivery_id));
      if (recorded.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return named.map(() => true);
    },
  });
  for (const [i, id] of ids.entries()) await hand(taker, id, `n${i}.edi`, `ISA*${i}~`);
  await taker.link({ message_id: ids[0], delivery_id: 1 });
  await waitFor(() => recorded.length === 1, 'the first record under way');
  await taker.link({ message_id: ids[1], delivery_id: 2 });
  await taker.link({ message_id: ids[2], delivery_id: 3 });
  await new Promise((resolve) => setTimeout(resolve, 5 * limits.writerRecordAfterMs));
  t.same(recorded, [[1]], 'the others wait while the first record is under way');
  release();
  await waitFor(() => recorded.length === 2, 'the others recorded');
  t.same(recorded, [[1], [2, 3]], 'in one record');
});

t.test('a record the database does not answer is tried again', async (t) => {
  let fail = true;
  const recorded: number[][] = [];
  const { taker } = await setUp(t, async () => true, {
    recordHanded: async (named: readonly { delivery_id: number }[]) => {
      if (fail) throw new Error('the database does not answer');
      recorded.push(named.map((n) => n.delivery_id));
      return named.map(() => true);
    },
  });
  await hand(taker, ids[0], 'retry.edi', 'ISA*1~');
  await taker.link({ message_id: ids[0], delivery_id: 9 });
  fail = false;
  await waitFor(() => recorded.length === 1, 'recorded once the database answers', 10_000);
  t.same(recorded, [[9]]);
});

t.test('handed files nobody holds are resolved by what their deliveries are', async (t) => {
  const asked: string[] = [];
  const outcomes = new Map<string, 'held' | 'queued' | 'settled'>();
  const { dir, taker } = await setUp(t, async () => true, {
    handedLeftover: async (messageId: string, node: number) => {
      asked.push(`${node}:${messageId}`);
      return outcomes.get(messageId) ?? 'settled';
    },
  });
  const tmp = temporaryDirectory(dir);
  await mkdir(tmp, { recursive: true });
  const file = (node: number, id: string) => path.join(tmp, `h-${node}-${id}.tmp`);
  const old = new Date(Date.now() - 2 * limits.othersLeftoverAfterMs);
  // This node's (a thread of this process that ended): resolved at start whatever its age.
  await writeFile(file(1, ids[0]), 'mine');
  outcomes.set(ids[0], 'queued');
  // Another node's, old: its node is alive, so it stays; another one's, old, never accepted: removed.
  await writeFile(file(2, ids[1]), 'alive');
  await utimes(file(2, ids[1]), old, old);
  outcomes.set(ids[1], 'held');
  await writeFile(file(3, ids[2]), 'dead');
  await utimes(file(3, ids[2]), old, old);
  // Another node's, just written: maybe in hand there while its presence is being taken again.
  const young = '00000000-0000-4000-8000-00000000000d';
  await writeFile(file(4, young), 'young');

  t.same(await taker.resolveLeftovers(), { found: 3, queued: 1, removed: 2, held: 1 });
  t.same(asked.sort(), [`1:${ids[0]}`, `2:${ids[1]}`, `3:${ids[2]}`], 'the young file is not asked about');
  t.same((await readdir(tmp)).sort(), [`h-2-${ids[1]}.tmp`, `h-4-${young}.tmp`]);

  // Later looks leave this node's own files alone: they may be in hand.
  await writeFile(file(1, young), 'in hand');
  asked.length = 0;
  t.same(await taker.resolveLeftovers(false), { found: 1, queued: 0, removed: 0, held: 1 });
  t.same(asked, [`2:${ids[1]}`]);
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
  await taker.stopping();
  t.same(
    await readdir(temporaryDirectory(dir)),
    [`h-1-${ids[2]}.tmp`],
    'a writer stopping keeps it for its next start, which asks again',
  );
});

t.test(
  "this node's handed file the start could not resolve is looked at again by the next sweep",
  async (t) => {
    let answering = false;
    const asked: string[] = [];
    const { dir, taker } = await setUp(t, async () => true, {
      handedLeftover: async (messageId: string, node: number) => {
        asked.push(`${node}:${messageId}`);
        if (!answering) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
        return 'queued';
      },
    });
    const tmp = temporaryDirectory(dir);
    await mkdir(tmp, { recursive: true });
    await writeFile(path.join(tmp, `h-1-${ids[0]}.tmp`), 'left by a thread that ended');
    t.same(
      await taker.resolveLeftovers(),
      { found: 1, queued: 0, removed: 0, held: 1 },
      'kept while the database does not answer',
    );
    // A file handed since, in hand: a later sweep leaves it alone, as before.
    await writeFile(path.join(tmp, `h-1-${ids[1]}.tmp`), 'in hand');
    answering = true;
    asked.length = 0;
    t.same(
      await taker.resolveLeftovers(false),
      { found: 1, queued: 1, removed: 1, held: 0 },
      'queued again at the next sweep',
    );
    t.same(asked, [`1:${ids[0]}`], 'only the file left at start is asked about');
    t.same(await readdir(tmp), [`h-1-${ids[1]}.tmp`], 'its file gone, the one in hand kept');
    asked.length = 0;
    t.same(await taker.resolveLeftovers(false), { found: 0, queued: 0, removed: 0, held: 0 }, 'then nothing');
  },
);
