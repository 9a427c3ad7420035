// Covers a target's delivery loop: claims that grow with the backlog, deliveries at most the configured number at a time in claim order, results reported together without holding a slot, a claim that rides with the result that frees a busy slot, and results and claims kept through a database outage and recorded soon after it.
import t from 'tap';
import type { ClaimedDelivery, DeliveryOutcome } from '../../protocol/core-protocol.js';
import type { CoreClient } from '../../protocol/worker-host/host.js';
import { waitFor } from '../../test/helpers/wait.js';
import { DeliveryLoop } from './delivery-loop.js';
import type { DeliveryPort, Reported } from './delivery-port.js';
import { limits } from '../../limits/limits.js';

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
 * does), records each report's results, and claims along with a report when asked, as the
 * real statement does. `down` makes claims and reports fail, as they do while PostgreSQL is
 * away; `resultsDown` only reports (and the claims that ride with them).
 */
function fakeCore(queued: ClaimedDelivery[]) {
  const reports: number[][] = [];
  /** Every claim's limit, its own and along with a report. */
  const asked: number[] = [];
  /** The limits of the claims made by themselves. */
  const ownClaims: number[] = [];
  const logs: string[] = [];
  const state = { down: false, resultsDown: false };
  const take = (limit: number) => {
    asked.push(limit);
    const deliveries = queued.splice(0, limit);
    return { deliveries, more: queued.length > 0 };
  };
  const core = {
    claim: (limit: number) => {
      ownClaims.push(limit);
      if (state.down) return Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
      return Promise.resolve(take(limit));
    },
    record: (results: Reported[], claimLimit: number) => {
      if (state.down || state.resultsDown)
        return Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
      reports.push(results.map((r) => r.delivery.delivery_id));
      return Promise.resolve({
        applied: results.map(() => true),
        claimed: claimLimit > 0 ? take(claimLimit) : null,
      });
    },
    log: (_level: string, msg: string) => logs.push(msg),
  } as unknown as DeliveryPort & CoreClient;
  return {
    core,
    queued,
    reports,
    asked,
    ownClaims,
    logs,
    state,
  };
}

const ok: DeliveryOutcome = { ok: true, detail: 'Written' };

t.test('one slot: a backlog is delivered one at a time, in claim order, and reported together', async (t) => {
  const { core, reports, ownClaims } = fakeCore(many(3));
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
  t.same(
    reports,
    [[1], [2, 3]],
    'the claim of the rest rode with the first result; the rest reported together when the last finished, not after the linger',
  );
  t.same(ownClaims, [1], 'one claim of its own: two statements fewer than a claim and a report each');
  await loop.stop();
});

t.test('with every slot busy, a notice of work claims with the next result', async (t) => {
  const { core, queued, reports, asked, ownClaims } = fakeCore([delivery(1)]);
  const finish = new Map<number, () => void>();
  const loop = new DeliveryLoop(
    core,
    1,
    (d) => new Promise<DeliveryOutcome>((resolve) => finish.set(d.delivery_id, () => resolve(ok))),
    60_000,
  );
  loop.poke();
  await waitFor(() => finish.has(1), 'the first delivery');
  queued.push(delivery(2));
  loop.poke();
  await new Promise((r) => setTimeout(r, 50));
  t.same(ownClaims, [1], 'no claim while the one slot is busy');
  finish.get(1)!();
  await waitFor(() => finish.has(2), 'the second delivery, claimed with the first result');
  t.same(reports, [[1]], 'the first result reported at once, the linger not waited for');
  t.equal(asked.length, 2, 'the second claim rode with that report');
  finish.get(2)!();
  await waitFor(() => reports.length === 2, 'the second result');
  t.same(ownClaims, [1], 'still one claim of its own');
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
  t.ok(
    asked.slice(0, 10).some((n) => n >= 32),
    `full claims double the window towards 64 (${asked.join(' ')})`,
  );
  t.ok(Math.max(...asked) <= 64, 'never more than 64 deliveries in hand');
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

t.test('results kept through a long outage are recorded soon after the database answers', async (t) => {
  // A full window (one slot, one delivery in hand) claims nothing until its result is recorded:
  // the wait after the database returns is the time this target takes no work.
  const { core, reports, state } = fakeCore([delivery(1)]);
  state.resultsDown = true;
  const loop = new DeliveryLoop(core, 1, async () => ok, 5);
  loop.poke();
  // Attempts at 0.5, 1.5, 3.5, 5.5, 7.5 s…; with waits doubling up to 15 s the next after 7.5 s
  // came at 15.5 s.
  await new Promise((r) => setTimeout(r, 8_000));
  t.same(reports, [], 'nothing recorded while the database is away');
  state.resultsDown = false;
  const back = Date.now();
  await waitFor(() => reports.length === 1, 'the result recorded', 20_000);
  const waited = Date.now() - back;
  t.ok(waited <= limits.maxResultRetryMs + 300, `recorded ${waited} ms after the database answered`);
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
