// Covers the shared clock: a thread given its buffer reads the time the test set, moved or running ahead of the real clock, and a thread given none reads the real clock.
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import t, { type Test } from 'tap';
import { fixtureModule } from '../test/helpers/fixture-module.js';
import { SharedClock } from './clock.js';

const reader = fixtureModule(import.meta.url, './fixtures/clock-reader');

/** A thread reading `clock` (none: the real one); `read` asks it the time. */
async function threadWith(t: Test, clock?: SharedClock): Promise<() => Promise<number>> {
  const worker = new Worker(reader, { workerData: clock ? { clock: clock.buffer } : {} });
  t.teardown(() => worker.terminate());
  return async () => {
    worker.postMessage('now');
    const [ms] = (await once(worker, 'message')) as [number];
    return ms;
  };
}

t.test('a stopped clock: the thread reads what the test set and every move after', async (t) => {
  const at = Date.parse('2026-06-01T08:00:00.000Z');
  const clock = SharedClock.stoppedAt(at);
  const read = await threadWith(t, clock);
  t.equal(await read(), at, 'the time set');
  clock.advance(90_000);
  t.equal(await read(), at + 90_000, 'moved forward');
  clock.advance(-30_000);
  t.equal(await read(), at + 60_000, 'moved back');
  clock.set(at + 1_410_000);
  t.equal(await read(), at + 1_410_000, 'set again');
  t.equal(clock.now().getTime(), at + 1_410_000, 'the main thread reads the same');
});

t.test('a running clock ahead of the real one, and no clock at all', async (t) => {
  const hour = 3_600_000;
  const clock = SharedClock.ahead(2 * hour);
  const read = await threadWith(t, clock);
  const before = Date.now();
  const ahead = await read();
  t.ok(ahead >= before + 2 * hour && ahead <= Date.now() + 2 * hour, 'two hours ahead');
  clock.follow(-25 * hour);
  const behind = await read();
  t.ok(behind <= Date.now() - 25 * hour && behind >= before - 25 * hour, 'followed 25 hours behind');
  const real = await threadWith(t);
  const start = Date.now();
  const read2 = await real();
  t.ok(read2 >= start && read2 <= Date.now(), 'without a clock: the real one');
});

t.test('a buffer of another size is not a clock', async (t) => {
  t.throws(() => SharedClock.of(new SharedArrayBuffer(8)), /wrong size/);
});
