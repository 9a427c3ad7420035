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

t.test('a claim answered short leaves room that later acceptances fill for its next claim', async (t) => {
  const claims = new WaitingClaims();
  const first = claims.wait('out', 4);
  const one = claims.take();
  claims.settle(one.taken, new Map([['out', [delivery(1)]]]));
  t.same(await first, [delivery(1)]);
  // The target's next claim is on its way; an acceptance runs before it arrives.
  const two = claims.take();
  t.same([...two.rooms], [['out', 3]], 'the rest of the answered claim is offered');
  t.same(claims.settle(two.taken, new Map([['out', [delivery(2), delivery(3)]]])), { due: [], orphaned: [] });
  const less = claims.take();
  t.same([...less.rooms], [['out', 1]], 'less what is held already');
  claims.settle(less.taken, new Map());
  t.same(claims.arrive('out', 1), [delivery(2)], 'the next claim gets what is held, up to its limit');
  t.same(claims.arrive('out', 4), [delivery(3)], 'and the one after it the rest');
  const three = claims.take();
  t.same([...three.rooms], [['out', 3]], 'that claim too was answered short');
  claims.settle(three.taken, new Map());
  t.equal(claims.arrive('out', 4), undefined, 'then nothing is held: the claim goes to the database');
  t.same([...claims.take().rooms], [], 'and its room is its own again');
});

t.test('a claim answered in full, or with nothing, leaves no room behind', async (t) => {
  const claims = new WaitingClaims();
  const full = claims.wait('out', 2);
  const { taken } = claims.take();
  claims.settle(taken, new Map([['out', [delivery(1), delivery(2)]]]));
  t.same(await full, [delivery(1), delivery(2)]);
  t.same([...claims.take().rooms], [], 'nothing offered after a full answer');
  claims.answered('out', 4, 0);
  t.same([...claims.take().rooms], [], 'nor after an empty one');
});

t.test('deliveries claimed into the rest go to a claim that began waiting meanwhile', async (t) => {
  const claims = new WaitingClaims();
  claims.answered('out', 4, 1);
  const { taken } = claims.take();
  t.equal(claims.arrive('out', 2), undefined, 'the claim arrives while the acceptance runs');
  const waiting = claims.wait('out', 2);
  claims.settle(taken, new Map([['out', [delivery(1), delivery(2), delivery(3)]]]));
  t.same(await waiting, [delivery(1), delivery(2)], 'answered with its limit');
  t.same(claims.arrive('out', 4), [delivery(3)], 'the rest held for the next claim');
});

t.test('a stopped instance gets back what is held for it, also from an acceptance in flight', async (t) => {
  const claims = new WaitingClaims();
  claims.answered('out', 4, 1);
  claims.settle(claims.take().taken, new Map([['out', [delivery(1)]]]));
  t.same(claims.cancel('out'), [delivery(1)], 'the held delivery, to be given back');
  t.same([...claims.take().rooms], [], 'and no room is left');

  t.equal(claims.arrive('out', 4), undefined, 'started again, the instance claims');
  claims.answered('out', 4, 1);
  const { taken } = claims.take();
  t.same(claims.cancel('out'), []);
  t.same(claims.settle(taken, new Map([['out', [delivery(2)]]])), { due: [], orphaned: [delivery(2)] });
  t.equal(claims.arrive('out', 4), undefined, 'nothing held for a later claim');
});

t.test('cancelAll returns every held delivery and leaves no room for later answers', async (t) => {
  const claims = new WaitingClaims();
  claims.answered('out', 4, 1);
  claims.answered('archive', 4, 1);
  claims.settle(
    claims.take().taken,
    new Map([
      ['out', [delivery(1)]],
      ['archive', [delivery(2)]],
    ]),
  );
  t.same(
    claims
      .cancelAll()
      .map((d) => d.delivery_id)
      .sort(),
    [1, 2],
  );
  claims.answered('out', 4, 1);
  t.same([...claims.take().rooms], [], 'a stopping process offers no room');
});

t.test('a claim answered after its instance stopped leaves no room until the next claim', async (t) => {
  const claims = new WaitingClaims();
  t.equal(claims.arrive('out', 4), undefined, 'a claim arrives and goes to the database');
  claims.cancel('out');
  claims.answered('out', 4, 1);
  t.same([...claims.take().rooms], [], 'the statement that ended after the stop leaves no room');
  t.equal(claims.arrive('out', 4), undefined, 'the instance runs again and claims');
  claims.answered('out', 4, 1);
  t.same([...claims.take().rooms], [['out', 3]]);
});
