// Covers when a target's delivery loop reports results: together when several finish while it has room for more, at once when it has none, and at once when it stops.
import t from 'tap';
import type { ClaimedDelivery, DeliveryOutcome } from '../../protocol/core-protocol.js';
import type { CoreClient } from '../../protocol/worker-host/host.js';
import { waitFor } from '../../test/helpers/wait.js';
import { DeliveryLoop } from './delivery-loop.js';

const delivery = (id: number): ClaimedDelivery => ({
  delivery_id: id,
  claim: 1,
  attempt: 1,
  message: { id: `m-${id}`, from: 'alice', to: 'bob', file_name: 'a.edi', direction: 'inbound' },
  payload: { stage: 'unpacked', size_bytes: 1 },
});

/**
 * A core that hands out `queued` to claims (a claim that finds nothing waits, as the real one
 * does) and records results by synchronous run: the real core client sends one run as one request.
 */
function fakeCore(queued: ClaimedDelivery[]) {
  const reports: number[][] = [];
  let run: number[] | null = null;
  const waiting: ((d: ClaimedDelivery[]) => void)[] = [];
  const core = {
    claim: (limit: number) =>
      queued.length > 0
        ? Promise.resolve(queued.splice(0, limit))
        : new Promise<ClaimedDelivery[]>((resolve) => waiting.push(resolve)),
    result: (d: ClaimedDelivery) => {
      if (!run) {
        run = [];
        reports.push(run);
        queueMicrotask(() => (run = null));
      }
      run.push(d.delivery_id);
      return Promise.resolve(true);
    },
    log: () => {},
  } as unknown as CoreClient;
  return { core, reports, release: () => waiting.splice(0).forEach((resolve) => resolve([])) };
}

const ok: DeliveryOutcome = { ok: true, detail: 'Written' };

t.test('a loop with one slot reports each result at once, not after the linger', async (t) => {
  const { core, reports, release } = fakeCore([delivery(1), delivery(2), delivery(3)]);
  const loop = new DeliveryLoop(core, 1, async () => ok, 60_000);
  loop.poke();
  await waitFor(() => reports.length === 3, 'three results', 5_000);
  t.same(reports, [[1], [2], [3]], 'one report per delivery, in order');
  release();
  await loop.stop();
});

t.test('results that finish while the loop has room go together after the linger', async (t) => {
  const { core, reports, release } = fakeCore([delivery(1), delivery(2), delivery(3)]);
  let delivered = 0;
  const loop = new DeliveryLoop(
    core,
    10,
    async () => {
      delivered++;
      return ok;
    },
    300,
  );
  const started = Date.now();
  loop.poke();
  await waitFor(() => delivered === 3, 'three deliveries');
  await new Promise((r) => setTimeout(r, 50));
  t.same(reports, [], 'nothing reported while the others may still join');
  await waitFor(() => reports.length > 0, 'the report');
  t.ok(Date.now() - started >= 300, 'reported after the linger');
  t.same(reports, [[1, 2, 3]], 'the three in one report');
  release();
  await loop.stop();
});

t.test('a result is reported at once when no slot is free for another delivery', async (t) => {
  const { core, reports, release } = fakeCore([delivery(1), delivery(2)]);
  let finishFirst!: () => void;
  const first = new Promise<DeliveryOutcome>((resolve) => (finishFirst = () => resolve(ok)));
  const loop = new DeliveryLoop(core, 2, (d) => (d.delivery_id === 1 ? first : Promise.resolve(ok)), 60_000);
  loop.poke();
  await waitFor(() => reports.length > 0, 'the first report', 5_000);
  t.same(reports, [[2]], 'the second, finished while the first holds the other slot');
  finishFirst();
  release();
  await loop.stop();
  t.same(reports, [[2], [1]], 'the first reported when the loop stops');
});

t.test('a stop reports the held results at once', async (t) => {
  const { core, reports, release } = fakeCore([delivery(7)]);
  let delivered = false;
  const loop = new DeliveryLoop(
    core,
    10,
    async () => {
      delivered = true;
      return ok;
    },
    60_000,
  );
  loop.poke();
  await waitFor(() => delivered, 'the delivery');
  t.same(reports, [], 'held while the loop runs');
  release();
  const stopping = Date.now();
  await loop.stop();
  t.ok(Date.now() - stopping < 5_000, 'the stop did not wait for the linger');
  t.same(reports, [[7]], 'reported on stop');
});
