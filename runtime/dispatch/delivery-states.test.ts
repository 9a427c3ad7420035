// Covers the delivery state table (spec 3.3): which states each event applies to, matching the spec's rows.
import t from 'tap';
import { deliveryStates, deliveryTransitions, statesFor } from './delivery-states.js';

t.test(
  'redeliver applies to failed, stalled, retrying, delivered (spec 3.3) and leads to queued',
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

t.test('the moves the spec leaves open', async (t) => {
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
