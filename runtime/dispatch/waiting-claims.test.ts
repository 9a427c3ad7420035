// Covers the claims that wait for work: what answers them (an acceptance's deliveries, a work
// notice, a cancel), and what happens to work and cancels that come while an acceptance holds one.
import t from 'tap';
import type { ClaimedDelivery } from '../../protocol/core-protocol.js';
import { WaitingClaims } from './waiting-claims.js';

const delivery = (id: number): ClaimedDelivery => ({
  delivery_id: id,
  claim: 1,
  attempt: 1,
  message: { id: `m${id}`, from: 'a', to: 'b', file_name: 'f', direction: 'inbound' },
  payload: { stage: 'unpacked', size_bytes: 1 },
});

/** Whether the promise has settled, and with what, after pending callbacks ran. */
async function state<T>(promise: Promise<T>): Promise<T | 'pending'> {
  return Promise.race([promise, new Promise<'pending'>((resolve) => setImmediate(() => resolve('pending')))]);
}

t.test('an acceptance answers a waiting claim with the deliveries it claimed for it', async (t) => {
  const claims = new WaitingClaims();
  const answer = claims.wait('out', 4);
  const { taken, rooms } = claims.take();
  t.same([...rooms], [['out', 4]], 'its room is offered to the acceptance');
  t.same(claims.settle(taken, new Map([['out', [delivery(1)]]])), { due: [], orphaned: [] });
  t.same(await answer, [delivery(1)]);
});

t.test('an acceptance with nothing for it leaves the claim waiting', async (t) => {
  const claims = new WaitingClaims();
  const answer = claims.wait('out', 4);
  const { taken } = claims.take();
  claims.settle(taken, new Map());
  t.equal(await state(answer), 'pending');
  t.ok(claims.notice('out'), 'a work notice finds it waiting');
});

t.test('work announced while an acceptance holds the claim makes it due', async (t) => {
  const claims = new WaitingClaims();
  void claims.wait('out', 4);
  const { taken } = claims.take();
  t.notOk(claims.notice('out'), 'the notice cannot answer a claim the acceptance holds');
  const { due } = claims.settle(taken, new Map());
  t.same(
    due.map(([target]) => target),
    ['out'],
    'so it is claimed for at once, not left waiting',
  );
});

t.test(
  'a cancel while an acceptance holds the claim: answered empty, its deliveries given back',
  async (t) => {
    const claims = new WaitingClaims();
    const answer = claims.wait('out', 4);
    const { taken } = claims.take();
    claims.cancel('out');
    t.same(await answer, [], 'answered at once');
    t.same(claims.settle(taken, new Map([['out', [delivery(7)]]])), { due: [], orphaned: [delivery(7)] });
  },
);

t.test('a new claim of a target answers its older one empty; cancelAll answers every one', async (t) => {
  const claims = new WaitingClaims();
  const older = claims.wait('out', 4);
  const newer = claims.wait('out', 2);
  t.same(await older, []);
  const other = claims.wait('archive', 1);
  claims.cancelAll();
  t.same(await Promise.all([newer, other]), [[], []]);
  t.notOk(claims.notice('out'), 'nothing waits any more');
});
