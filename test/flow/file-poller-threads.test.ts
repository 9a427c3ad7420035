// Covers a file poller on two threads (`threads` 2) in a real `pier serve`: both threads take files from one directory, each file becomes one message with its bytes, taken by one thread (the `message accepted` lines say which) and moved once; a stop while files are being taken ends both threads with no file lost or taken twice, and a start takes the rest; `threads` values out of range are refused with the field's message.
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
const { dir, inbox, outbox, start, count } = await killablePier(t, 'pier-poller-threads-');
const processed = path.join(dir, 'done', 'globex');

const content = (name: string) => `${name}\n`.repeat(30);

/** The files written to the outbox that are missing or do not hold their bytes. */
async function wrongOrMissing(names: string[]): Promise<string[]> {
  const wrong: string[] = [];
  for (const name of names)
    if ((await readFile(path.join(outbox, name), 'utf8').catch(() => '')) !== content(name)) wrong.push(name);
  return wrong;
}

const pier = await start();
await fileFlowOn(pier, dir, outbox, {
  writer: { path_pattern: '{filename}', max_concurrent_deliveries: 4 },
  poller: { threads: 2 },
});
const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}.dat`);

t.test('both threads take files from one directory; each file once', async (t) => {
  const first = names('a', 80);
  for (const name of first) await writeFile(path.join(inbox, name), content(name));
  await mustOn(pier, '/services/file-poller/in/start');
  await runningIn(pier, 'in');
  await loggedIn(pier, 'taking files on 2 threads');
  t.same(
    threadNames(pier.child.pid!, 'file-poller').sort(),
    ['file-poller', 'file-poller-2'],
    'the poller runs two named threads',
  );
  await allDelivered(count, 80, 120_000, '80 deliveries delivered');
  t.equal(await count('message'), 80, 'one message per file');
  t.same(await wrongOrMissing(first), [], 'each written with its bytes');
  t.same(await readdir(inbox), [], 'none left in the directory');
  t.same((await readdir(processed)).sort(), [...first].sort(), 'each moved aside once');
  // Per thread, the files its `message accepted` lines name.
  const by = perThread(pier, 'message accepted', { source: 'file-poller/in' }, 'file_name');
  const taken = [...by.values()].flat();
  t.same([...taken].sort(), [...first].sort(), 'each file accepted once');
  t.same([...by.keys()].sort(), [1, 2], 'by both threads');
  t.ok(
    [...by.values()].every((files) => files.length >= 20),
    `both take a share: ${[...by].map(([n, f]) => `thread ${n} ${f.length}`).join(', ')}`,
  );
});

t.test('a stop while files are taken loses none and takes none twice; a start takes the rest', async (t) => {
  const second = names('b', 150);
  for (const name of second) await writeFile(path.join(inbox, name), content(name));
  await waitFor(
    async () => (await count('message')) >= 110 || undefined,
    'the second batch under way',
    120_000,
    20,
  );
  await mustOn(pier, '/services/file-poller/in/stop');
  await statusIn(pier, 'in', 'stopped');
  t.same(threadNames(pier.child.pid!, 'file-poller'), [], 'both threads ended');
  const left = await readdir(inbox);
  const moved = (await readdir(processed)).filter((n) => n.startsWith('b'));
  t.equal(left.length + moved.length, 150, `each file either taken or still there (${left.length} left)`);
  t.equal(
    await count("message where file_name like 'b%'"),
    moved.length,
    'a message for each file moved, no other',
  );
  t.notOk(
    pier.logLines.some((l) => l.msg === 'a thread of the file poller was lost; the poller stops'),
    'no thread was lost',
  );

  await mustOn(pier, '/services/file-poller/in/start');
  await allDelivered(count, 230, 120_000, 'all 230 delivered');
  t.equal(await count('message'), 230, 'one message per file, none twice');
  t.same(await readdir(inbox), [], 'none left');
  t.same(await wrongOrMissing(second), [], 'each written with its bytes');
});

t.test('threads out of range are refused with the reason', async (t) => {
  await refusesThreadsOutOfRange(t, pier, 'file-poller', {
    base_directory: path.join(dir, 'bad-in'),
    processed_directory: path.join(dir, 'bad-done'),
    from: 'acme',
  });
});
