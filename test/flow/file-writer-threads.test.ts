// Covers a file writer on two threads (`threads` 2) in a real `pier serve`: files a poller accepts are queued, and both threads claim and write them, each file written once with its bytes and each delivery delivered once (the `delivery delivered` lines say which thread); a stop while files are being written drains both threads (nothing left held or half-written, both threads end) and a start writes the rest; `threads` values out of range are refused with the field's message.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { threadNames } from '../../benchmarks/lib/thread-cpu.js';
import {
  fileFlowOn,
  killablePier,
  loggedIn,
  mustOn,
  perThread,
  refusesThreadsOutOfRange,
  runningIn,
  statusIn,
} from '../helpers/process.js';
import { allDelivered } from '../helpers/row-counts.js';
import { waitFor } from '../helpers/wait.js';

t.setTimeout(300_000);

// A database and a directory of its own, a pier on them, and `count` of its rows.
const { dir, inbox, outbox, start, count } = await killablePier(t, 'pier-writer-threads-');

const content = (i: number) => `file ${i}\n`.repeat(40 + (i % 7));

/** The files written (temporaries left out), and the writer's temporaries left. */
async function written(): Promise<{ files: Map<string, string>; temporaries: string[] }> {
  const files = new Map<string, string>();
  for (const name of await readdir(outbox).catch(() => []))
    if (!name.startsWith('.')) files.set(name, await readFile(path.join(outbox, name), 'utf8'));
  const temporaries = await readdir(path.join(outbox, '.pier-tmp')).catch(() => []);
  return { files, temporaries };
}

/** The files `<prefix><i>.dat` of `files` that are missing or do not hold their bytes. */
const wrongBytes = (files: Map<string, string>, prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix}${i}.dat`).filter(
    (name, i) => files.get(name) !== content(i),
  );

const pier = await start();
await fileFlowOn(pier, dir, outbox, {
  writer: { path_pattern: '{filename}', threads: 2, max_concurrent_deliveries: 4 },
});

t.test('both threads claim the queued deliveries; each file is written once', async (t) => {
  await runningIn(pier, 'out');
  await loggedIn(pier, 'writing on 2 threads');
  t.same(
    threadNames(pier.child.pid!, 'file-writer').sort(),
    ['file-writer', 'file-writer-2'],
    'the writer runs two named threads',
  );
  for (let i = 0; i < 80; i++) await writeFile(path.join(inbox, `a${i}.dat`), content(i));
  await mustOn(pier, '/services/file-poller/in/start');
  await allDelivered(count, 80, 120_000, '80 deliveries delivered');
  const { files, temporaries } = await written();
  t.equal(files.size, 80, 'one file per accepted file');
  t.same(wrongBytes(files, 'a', 80), [], 'each with its bytes');
  t.same(temporaries, [], 'no temporary left');
  t.equal(await count('message'), 80, 'one message per file');
  t.equal(
    await count("delivery where state = 'delivered' and attempts = 1"),
    80,
    'each delivered at the first attempt',
  );
  const by = await waitFor(
    () => {
      // Per thread, the deliveries its `delivery delivered` lines name.
      const now = perThread(pier, 'delivery delivered', { target: 'out' }, 'delivery_id');
      return [...now.values()].flat().length === 80 ? now : undefined;
    },
    'a delivered line per delivery',
    10_000,
    50,
  );
  const ids = [...by.values()].flat();
  t.equal(new Set(ids).size, 80, 'each delivery delivered once');
  t.same([...by.keys()].sort(), [1, 2], 'by both threads');
  t.ok(
    [...by.values()].every((d) => d.length >= 5),
    `both write a part: ${[...by].map(([n, d]) => `thread ${n} ${d.length}`).join(', ')}`,
  );
});

t.test('a stop drains both threads; a start writes the rest', async (t) => {
  for (let i = 0; i < 120; i++) await writeFile(path.join(inbox, `b${i}.dat`), content(i));
  await waitFor(
    async () => (await count("delivery where state = 'delivered'")) >= 90 || undefined,
    'the second batch under way',
    120_000,
    20,
  );
  await mustOn(pier, '/services/file-writer/out/stop');
  await statusIn(pier, 'out', 'stopped');
  t.same(threadNames(pier.child.pid!, 'file-writer'), [], 'both threads ended');
  t.equal(await count("delivery where state = 'delivering'"), 0, 'nothing is left held');
  t.equal(await count('delivery where attempts > 1'), 0, 'nothing was cut off mid-write');
  const stopped = await written();
  t.same(stopped.temporaries, [], 'nothing half-written');
  const delivered = await count("delivery where state = 'delivered'");
  t.equal(stopped.files.size, delivered, 'a file for each delivery delivered, no other');
  t.notOk(
    pier.logLines.some((l) => l.msg === 'a thread of the file writer was lost; the writer stops'),
    'no thread was lost',
  );

  await mustOn(pier, '/services/file-writer/out/start');
  await allDelivered(count, 200, 120_000, 'all 200 delivered');
  const { files, temporaries } = await written();
  t.equal(files.size, 200, 'every file written, once');
  t.same(wrongBytes(files, 'b', 120), [], 'each with its bytes');
  t.same(temporaries, [], 'no temporary left');
  t.equal(await count('delivery'), 200, 'one delivery per message');
});

t.test('threads out of range are refused with the reason', async (t) => {
  await refusesThreadsOutOfRange(t, pier, 'file-writer', {
    directory: path.join(dir, 'bad'),
  });
});
