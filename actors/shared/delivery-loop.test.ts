// Covers a target's delivery loop: claims that grow with the backlog, deliveries at most the configured number at a time in claim order, results reported together without holding a slot, and results and claims kept through a database outage.
import t from 'tap';
import type { ClaimedDelivery, DeliveryOutcome } from '../../protocol/core-protocol.js';
import type { CoreClient } from '../../protocol/worker-host/host.js';
import { waitFor } from '../../test/helpers/wait.js';
import { DeliveryLoop } from './delivery-loop.js';
import type { DeliveryPort } from './delivery-port.js';

const delivery = (id: number): ClaimedDelivery => ({
  delivery_id: id,
  claim: 1,
  attempt: 1,
  message: { id: `m-${id}`, from: 'alice', to: 'bob', file_name: 'a.edi', direction: 'inbound' },
  payload: { stage: 'unpacked', size_bytes: 1 },
});
const many = (n: number) => Array.from({ length: n }, (_, i) => delivery(i + 1));

/**
 * A port that hands out `queued` to claims (saying whether more are left, as the real claim
 * does) and records results by synchronous run: the real core client sends one run as one
 * request. `down` makes claims and results fail, as they do while PostgreSQL is away.
 */
function fakeCore(queued: ClaimedDelivery[]) {
  const reports: number[][] = [];
  const asked: number[] = [];
  const logs: string[] = [];
  const state = { down: false, resultsDown: false };
  let run: number[] | null = null;
  const core = {
    claim: (limit: number) => {
      asked.push(limit);
      if (state.down) return Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
      const deliveries = queued.splice(0, limit);
      return Promise.resolve({ deliveries, more: queued.length > 0 });
    },
    result: (d: ClaimedDelivery) => {
      if (state.down || state.resultsDown)
        return Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
      if (!run) {
        run = [];
        reports.push(run);
        queueMicrotask(() => (run = null));
      }
      run.push(d.delivery_id);
      return Promise.resolve(true);
    },
    log: (_level: string, msg: string) => logs.push(msg),
  } as unknown as DeliveryPort & CoreClient;
  return {
    core,
    reports,
    asked,
    logs,
    state,
  };
}

const ok: DeliveryOutcome = { ok: true, detail: 'Written' };

t.test('one slot: a backlog is delivered one at a time, in claim order, and reported together', async (t) => {
  const { core, reports } = fakeCore(many(3));
  const order: number[] = [];
  let busy = 0;
  let most = 0;
  const loop = new DeliveryLoop(
    core,
    1,
    async (d) => {
      most = Math.max(most, ++busy);
      await new Promise((r) => setTimeout(r, 5));
      order.push(d.delivery_id);
      busy--;
      return ok;
    },
    60_000,
  );
  loop.poke();
  await waitFor(() => reports.flat().length === 3, 'three results', 5_000);
  t.equal(most, 1, 'never two deliveries at once');
  t.same(order, [1, 2, 3], 'in the order claimed');
  t.same(reports, [[1, 2, 3]], 'one report, sent when the last finished, not after the linger');
  await loop.stop();
});

t.test('a lone delivery is reported at once', async (t) => {
  const { core, reports } = fakeCore([delivery(1)]);
  const loop = new DeliveryLoop(core, 1, async () => ok, 60_000);
  loop.poke();
  await waitFor(() => reports.length === 1, 'the result', 5_000);
  t.same(reports, [[1]]);
  await loop.stop();
});

t.test('a result waiting for company does not hold a slot, and goes after the linger', async (t) => {
  const { core, reports } = fakeCore([delivery(1), delivery(2)]);
  let finishFirst!: () => void;
  const first = new Promise<DeliveryOutcome>((resolve) => (finishFirst = () => resolve(ok)));
  const loop = new DeliveryLoop(core, 2, (d) => (d.delivery_id === 1 ? first : Promise.resolve(ok)), 200);
  const started = Date.now();
  loop.poke();
  await waitFor(() => reports.length > 0, 'the first report', 5_000);
  t.ok(Date.now() - started >= 200, 'held for the linger while the first was still running');
  t.same(reports, [[2]], 'the second, finished while the first holds the other slot');
  finishFirst();
  await waitFor(() => reports.length === 2, 'the second report', 5_000);
  t.same(reports, [[2], [1]], 'the first reported at once: nothing else was in hand');
  await loop.stop();
});

t.test('claims grow with the backlog and shrink when it is gone', async (t) => {
  const { core, asked, reports } = fakeCore(many(300));
  const loop = new DeliveryLoop(core, 1, async () => ok, 5);
  loop.poke();
  await waitFor(() => reports.flat().length === 300, 'every result', 10_000);
  t.equal(asked[0], 1, 'the first claim asks for the concurrency');
  t.ok(asked.slice(0, 10).includes(64), `full claims double the window up to 64 (${asked.join(' ')})`);
  t.equal(Math.max(...asked), 64, 'never more than 64 deliveries in hand');
  t.ok(asked.length < 30, `few claims for 300 deliveries (${asked.length})`);
  t.ok(reports.length < 60, `few reports for 300 results (${reports.length})`);
  // Told of new work once the backlog is gone, the loop asks for less.
  loop.poke();
  await waitFor(() => asked.at(-1)! < 64, 'a smaller claim once the backlog is gone', 5_000);
  await loop.stop();
});

t.test('results the database does not take are kept and recorded once it answers', async (t) => {
  const { core, reports, logs, state } = fakeCore(many(3));
  state.resultsDown = true;
  let delivered = 0;
  const loop = new DeliveryLoop(
    core,
    1,
    async () => {
      delivered++;
      return ok;
    },
    10,
  );
  loop.poke();
  await waitFor(() => delivered === 3, 'three deliveries', 5_000);
  await new Promise((r) => setTimeout(r, 1_200));
  t.same(reports, [], 'nothing recorded while the database is away');
  state.resultsDown = false;
  await waitFor(() => reports.flat().length === 3, 'the kept results', 20_000);
  t.same(reports.flat().sort(), [1, 2, 3], 'each result recorded, none lost');
  t.same(
    logs.filter((l) => l.startsWith('recording')),
    ['recording delivery results failed; trying again', 'recording delivery results works again'],
    'one line when recording fails and one when it works again',
  );
  await loop.stop();
});

t.test('a failed claim is tried again without being told of work, and logged once', async (t) => {
  const { core, reports, logs, state } = fakeCore(many(2));
  state.down = true;
  const loop = new DeliveryLoop(core, 1, async () => ok, 10);
  loop.poke();
  await new Promise((r) => setTimeout(r, 2_000));
  t.same(reports, [], 'nothing claimed while the database is away');
  state.down = false;
  await waitFor(() => reports.flat().length === 2, 'both delivered', 10_000);
  t.same(
    logs.filter((l) => l.startsWith('claiming')),
    ['claiming deliveries failed; trying again', 'claiming deliveries works again'],
  );
  await loop.stop();
});

t.test('a stop reports the held results at once and leaves unstarted deliveries alone', async (t) => {
  const { core, reports } = fakeCore(many(3));
  const started: number[] = [];
  let finishFirst!: () => void;
  const first = new Promise<DeliveryOutcome>((resolve) => (finishFirst = () => resolve(ok)));
  const loop = new DeliveryLoop(
    core,
    1,
    (d) => {
      started.push(d.delivery_id);
      return d.delivery_id === 1 ? first : Promise.resolve(ok);
    },
    60_000,
  );
  loop.poke();
  await waitFor(() => started.length === 1, 'the first delivery');
  // Let the loop claim ahead while the first runs.
  await new Promise((r) => setTimeout(r, 50));
  const stopping = Date.now();
  const stopped = loop.stop();
  finishFirst();
  await stopped;
  t.ok(Date.now() - stopping < 5_000, 'the stop did not wait for the linger');
  t.same(started, [1], 'the deliveries claimed ahead were not started');
  t.same(reports, [[1]], 'the finished one reported on stop');
});
