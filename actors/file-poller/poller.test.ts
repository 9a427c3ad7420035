// Covers the file poller's logic without a thread: when a file is complete, what is never taken, acceptance before the move, offers repeated after a crash, failures that leave the file, and two threads' shares of one directory (each file taken by exactly one, both taking some).
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { Acceptance, OfferedMessage } from '../../protocol/core-protocol.js';
import type { CoreClient } from '../../protocol/worker-host/host.js';
import { noMetrics } from '../../protocol/metrics/port.js';
import { LocalPayloadStore } from '../../storage/payloads/local-store.js';
import type { FilePollerSettings } from './config.js';
import { FilePoller } from './poller.js';
import { shareOf } from './share.js';
import { limits } from '../../limits/limits.js';

const root = await mkdtemp(path.join(os.tmpdir(), 'pier-poller-'));
t.teardown(() => rm(root, { recursive: true, force: true }));

/** Accepts everything, or answers "offered before" for keys seen already, or fails when told to. */
class RecordingCore implements CoreClient {
  offered: OfferedMessage[] = [];
  keys = new Map<string, string>();
  failing = false;
  async accept(message: OfferedMessage): Promise<Acceptance> {
    if (this.failing) throw new Error('the database is away');
    this.offered.push(message);
    const earlier = this.keys.get(message.source_key!);
    if (earlier) return { message_id: earlier, duplicate: true, status: 'Delivered', queued: 0 };
    this.keys.set(message.source_key!, message.id);
    return { message_id: message.id, duplicate: false, status: 'InProgress', queued: 0 };
  }
  async claim(): Promise<never[]> {
    return [];
  }
  async result(): Promise<boolean> {
    return true;
  }
  async ask(): Promise<never> {
    throw new Error('the file poller asks the core no protocol questions');
  }
  log(): void {}
  storage(): void {}
  reach(): void {}
  hostKeyChanged(): void {}
  database(): void {}
  metrics = noMetrics;
}

let n = 0;
async function setup(overrides: Partial<FilePollerSettings> = {}) {
  const dir = path.join(root, `case-${++n}`);
  const settings: FilePollerSettings = {
    base_directory: path.join(dir, 'in'),
    processed_directory: path.join(dir, 'done'),
    path_pattern: '{to}/{filename}',
    file_pattern: '*.*',
    polling_interval: 60,
    read_edi_envelope: true,
    threads: 1,
    from: 'acme',
    to: '',
    ...overrides,
  };
  await mkdir(path.join(settings.base_directory, 'globex'), { recursive: true });
  const core = new RecordingCore();
  const store = new LocalPayloadStore(path.join(dir, 'store'));
  return { settings, core, store, poller: new FilePoller(settings, store, core), dir };
}

t.test('a file is taken at the second look, stored, accepted, then moved', async (t) => {
  const { settings, core, poller, dir } = await setup();
  await writeFile(path.join(settings.base_directory, 'globex', 'order.edi'), 'UNB');
  t.equal(await poller.scan(), 0, 'the first look only notes it');
  t.equal(await poller.scan(), 1);
  t.match(core.offered[0], {
    from: 'acme',
    to: 'globex',
    file_name: 'order.edi',
    payload: { stage: 'unpacked', size_bytes: 3, content: Buffer.from('UNB').toString('base64') },
  });
  t.same(await readdir(dir), ['done', 'in'], 'a small file is kept inline, nothing in the store');
  t.equal(await readFile(path.join(settings.processed_directory, 'globex', 'order.edi'), 'utf8'), 'UNB');
  t.same(await readdir(path.join(settings.base_directory, 'globex')), []);
});

t.test('a file larger than 64 KiB is copied into the store', async (t) => {
  const { settings, core, poller, dir } = await setup();
  const content = Buffer.alloc(limits.inlineMaxBytes + 1, 'x');
  await writeFile(path.join(settings.base_directory, 'globex', 'big.edi'), content);
  await poller.scan();
  t.equal(await poller.scan(), 1);
  t.same(core.offered[0]!.payload, { stage: 'unpacked', size_bytes: limits.inlineMaxBytes + 1 });
  t.ok((await readFile(path.join(dir, 'store', core.offered[0]!.id, 'unpacked'))).equals(content));
});

t.test('a file still growing, files in the making and other names are not taken', async (t) => {
  const { settings, core, poller } = await setup();
  const inbox = path.join(settings.base_directory, 'globex');
  await writeFile(path.join(inbox, 'growing.edi'), 'part one');
  await writeFile(path.join(inbox, '.hidden.edi'), 'x');
  await writeFile(path.join(inbox, 'upload.edi.part'), 'x');
  await writeFile(path.join(inbox, 'README'), 'no extension');
  await poller.scan();
  await writeFile(path.join(inbox, 'growing.edi'), 'part one, part two');
  t.equal(await poller.scan(), 0, 'changed since the last look');
  t.equal(await poller.scan(), 1, 'unchanged now');
  t.same(
    core.offered.map((m) => m.file_name),
    ['growing.edi'],
  );
  t.same((await readdir(inbox)).sort(), ['.hidden.edi', 'README', 'upload.edi.part']);
});

t.test('a file untouched for a whole interval is taken at first sight', async (t) => {
  const { settings, core, poller } = await setup({ polling_interval: 5 });
  const file = path.join(settings.base_directory, 'globex', 'old.edi');
  await writeFile(file, 'old');
  const past = new Date(Date.now() - 60_000);
  await utimes(file, past, past);
  t.equal(await poller.scan(), 1);
  t.equal(core.offered.length, 1);
});

t.test('a path that does not match is offered as refused, not lost', async (t) => {
  const { settings, core, poller } = await setup();
  await writeFile(path.join(settings.base_directory, 'stray.txt'), 'stray');
  await poller.scan();
  await poller.scan();
  t.match(core.offered[0], {
    file_name: 'stray.txt',
    from: 'acme',
    to: '',
    refusal: /does not match \{to\}\/\{filename\}/,
  });
  t.equal(await readFile(path.join(settings.processed_directory, 'stray.txt'), 'utf8'), 'stray');
});

t.test(
  'offered again after a crash: the earlier message stands, the copy is dropped, the file moves',
  async (t) => {
    const { settings, core, poller, dir } = await setup();
    const file = path.join(settings.base_directory, 'globex', 'again.edi');
    // Larger than inline, so a payload copy is written to the store and must go.
    await writeFile(file, Buffer.alloc(limits.inlineMaxBytes + 1, 'a'));
    // Accepted by a process that died before it could move the file: the core knows its key.
    const st = await stat(file, { bigint: true });
    core.keys.set(
      `${st.size}:${st.mtimeNs}:${st.ino}:globex/again.edi`,
      '00000000-0000-4000-8000-000000000001',
    );
    await poller.scan();
    t.equal(await poller.scan(), 1);
    t.equal(core.offered.length, 1);
    t.same(
      await readdir(path.join(dir, 'store')).catch(() => []),
      [],
      "the duplicate's payload copy is removed",
    );
    t.same(await readdir(path.join(settings.base_directory, 'globex')), []);
    t.same(await readdir(path.join(settings.processed_directory, 'globex')), ['again.edi']);
  },
);

t.test('when acceptance fails, the file stays and its payload copy goes', async (t) => {
  const { settings, core, poller, dir } = await setup();
  await writeFile(
    path.join(settings.base_directory, 'globex', 'later.edi'),
    Buffer.alloc(limits.inlineMaxBytes + 1),
  );
  await poller.scan();
  core.failing = true;
  t.equal(await poller.scan(), 0);
  t.same(await readdir(path.join(settings.base_directory, 'globex')), ['later.edi']);
  t.same(await readdir(path.join(dir, 'store')).catch(() => []), []);
  core.failing = false;
  t.equal(await poller.scan(), 1, 'taken at the next look');
});

t.test("two threads' shares: each file is taken by exactly one of them, and both take some", async (t) => {
  const { settings, core, store } = await setup();
  const inbox = path.join(settings.base_directory, 'globex');
  const names = Array.from({ length: 60 }, (_, i) => `order-${i}.edi`);
  for (const name of names) await writeFile(path.join(inbox, name), name);
  const first = new FilePoller(settings, store, core, undefined, shareOf(2, 1));
  const second = new FilePoller(settings, store, core, undefined, shareOf(2, 2));
  await Promise.all([first.scan(), second.scan()]);
  const [a, b] = await Promise.all([first.scan(), second.scan()]);
  t.equal(a + b, 60, 'every file taken');
  t.ok(a >= 15 && b >= 15, `both take a share: ${a} and ${b}`);
  t.same(core.offered.map((m) => m.file_name).sort(), [...names].sort(), 'each offered once');
  t.same(await readdir(inbox), [], 'none left');
  t.equal((await readdir(path.join(settings.processed_directory, 'globex'))).length, 60, 'all moved');
});
