// Covers group commit: a lone request goes at once (no timer, no event-loop turn), requests made meanwhile go together in the next batch, batches keep to their item and weight limits (an item heavier than the limit goes alone), and a failing batch is retried item by item so only the bad item fails.
import t from 'tap';
import { Batcher } from './batcher.js';

/** A batch runner that records the batches it was given and can be held until released. */
function recorder(fail?: (item: number) => boolean) {
  const batches: number[][] = [];
  let release: () => void = () => {};
  let gate: Promise<void> | null = null;
  return {
    batches,
    hold() {
      gate = new Promise((resolve) => (release = resolve));
    },
    release: () => release(),
    run: async (items: number[]) => {
      batches.push(items);
      if (gate) await gate;
      if (fail && items.some(fail)) throw new Error(`bad item among ${items.join(',')}`);
      return items.map((i) => i * 10);
    },
  };
}

t.test('a lone request goes at once; those made while it runs go together next', async (t) => {
  const r = recorder();
  const batcher = new Batcher(r.run);
  r.hold();
  const first = batcher.submit(1);
  await new Promise((resolve) => setImmediate(resolve));
  const later = [2, 3, 4].map((i) => batcher.submit(i));
  r.release();
  t.same(await Promise.all([first, ...later]), [10, 20, 30, 40]);
  t.same(r.batches, [[1], [2, 3, 4]]);
});

t.test('batches keep to maxItems and maxWeight; a heavier item goes alone', async (t) => {
  const r = recorder();
  const batcher = new Batcher(r.run, { maxItems: 3, weigh: (i) => i, maxWeight: 10 });
  const items = [1, 2, 3, 4, 5, 6, 30, 1];
  t.same(await Promise.all(items.map((i) => batcher.submit(i))), [10, 20, 30, 40, 50, 60, 300, 10]);
  t.same(r.batches, [[1, 2, 3], [4, 5], [6], [30], [1]]);
});

t.test('a failing batch is retried item by item: only the bad item fails', async (t) => {
  const r = recorder((i) => i === 2);
  const batcher = new Batcher(r.run);
  const outcomes = await Promise.allSettled([1, 2, 3].map((i) => batcher.submit(i)));
  t.same(
    outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message)),
    [10, 'bad item among 2', 30],
  );
  t.same(r.batches, [[1, 2, 3], [1], [2], [3]]);
});

t.test(
  'no timer: a lone request starts before the event loop turns; same-run requests join it',
  async (t) => {
    const r = recorder();
    const batcher = new Batcher(r.run);
    let turned = false;
    setImmediate(() => (turned = true));
    const both = [batcher.submit(1), batcher.submit(2)];
    // A few microtasks, no I/O or timer phase in between.
    for (let i = 0; i < 3; i++) await Promise.resolve();
    t.same(r.batches, [[1, 2]], 'the batch started');
    t.notOk(turned, 'before the event loop turned');
    t.same(await Promise.all(both), [10, 20]);
  },
);
