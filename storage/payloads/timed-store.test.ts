// Covers the timed payload store over a real local directory: every call is timed with its operation and outcome (a missing stage is an error), results and errors pass through unchanged, and the local store's fast paths (putFile, copyToFile, fileOf) stay available.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { LocalPayloadStore } from './local-store.js';
import { PayloadMissing } from './store.js';
import { timedStore } from './timed-store.js';

const dir = await mkdtemp(path.join(os.tmpdir(), 'pier-timed-store-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));

t.test('calls are timed by operation and outcome, and pass through', async (t) => {
  const calls: { operation: string; ok: boolean; seconds: number }[] = [];
  const store = timedStore(new LocalPayloadStore(path.join(dir, 'store')), (operation, ok, seconds) =>
    calls.push({ operation, ok, seconds }),
  );
  const ref = { messageId: '7f1c8a52-1e07-4a9c-9a52-6c1b2f1a0e11', stage: 'unpacked' as const };
  t.equal(await store.putBytes(ref, Buffer.from('hello')), 5);
  t.ok(store.putFile && store.copyToFile && store.fileOf, 'the local fast paths are kept');
  const copy = path.join(dir, 'copy.txt');
  t.equal(await store.copyToFile!(ref, copy), true);
  t.equal(await readFile(copy, 'utf8'), 'hello');
  await t.rejects(store.open({ ...ref, stage: 'receipt' }), PayloadMissing, 'the error passes through');
  t.same(
    calls.map((c) => `${c.operation} ${c.ok}`),
    ['put_bytes true', 'copy_to_file true', 'open false'],
  );
  t.ok(calls.every((c) => c.seconds >= 0 && c.seconds < 10));
  t.same(store.selection, { backend: 'local', directory: path.join(dir, 'store') });
});
