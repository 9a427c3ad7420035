// Covers the delivery state table (docs/api/lifecycles.md#delivery-state): which states each event applies to, matching the table's rows.
import t from 'tap';
import { deliveryStates, deliveryTransitions, nextState, statesFor } from './delivery-states.js';

t.test(
  'redeliver applies to failed, stalled, retrying, delivered (docs/api/lifecycles.md#delivery-state) and leads to queued',
  async (t) => {
    t.same(statesFor('redeliver').sort(), ['delivered', 'failed', 'retrying', 'stalled']);
    for (const s of statesFor('redeliver')) t.equal(deliveryTransitions[s].redeliver, 'queued');
    const refused = deliveryStates.filter((s) => !statesFor('redeliver').includes(s));
    t.same(refused, ['queued', 'delivering', 'awaiting_ack'], 'the states answered 409 NOT_REDELIVERABLE');
  },
);

t.test('redispatch queues queued and stalled deliveries again, leaves the rest alone', async (t) => {
  t.same(statesFor('redispatch'), ['queued', 'stalled']);
  for (const s of statesFor('redispatch')) t.equal(deliveryTransitions[s].redispatch, 'queued');
});

t.test('the moves pier makes by itself', async (t) => {
  t.same(statesFor('claim'), ['queued']);
  t.same(statesFor('stall'), ['queued'], 'only a queued delivery stalls');
  t.same(statesFor('release'), ['delivering']);
  t.same(statesFor('due'), ['retrying']);
  t.same(statesFor('deliver'), ['delivering']);
  t.same(statesFor('retry'), ['delivering']);
  t.same(statesFor('fail'), ['delivering', 'awaiting_ack']);
  t.equal(deliveryTransitions.delivering.retry, 'retrying');
  t.equal(deliveryTransitions.delivering.fail, 'failed');
});

t.test('acknowledgements: sent and waiting for a receipt, then settled by it', async (t) => {
  t.same(statesFor('await_ack'), ['delivering']);
  t.equal(deliveryTransitions.delivering.await_ack, 'awaiting_ack');
  t.same(statesFor('ack'), ['awaiting_ack']);
  t.equal(nextState('awaiting_ack', 'ack'), 'delivered');
  t.equal(nextState('awaiting_ack', 'fail'), 'failed');
});

t.test('every row of the table, and a move the table does not have refused', async (t) => {
  const rows = deliveryStates.flatMap((from) =>
    Object.entries(deliveryTransitions[from]).map(([event, to]) => `${from} --${event}--> ${to}`),
  );
  t.same(rows, [
    'queued --claim--> delivering',
    'queued --stall--> stalled',
    'queued --redispatch--> queued',
    'delivering --deliver--> delivered',
    'delivering --await_ack--> awaiting_ack',
    'delivering --retry--> retrying',
    'delivering --fail--> failed',
    'delivering --release--> queued',
    'retrying --due--> queued',
    'retrying --redeliver--> queued',
    'awaiting_ack --ack--> delivered',
    'awaiting_ack --fail--> failed',
    'delivered --redeliver--> queued',
    'failed --redeliver--> queued',
    'stalled --redispatch--> queued',
    'stalled --redeliver--> queued',
  ]);
  t.throws(() => nextState('delivered', 'ack'), /A delivery in delivered has no move on ack/);
  t.throws(() => nextState('queued', 'due'), /no move on due/);
});
