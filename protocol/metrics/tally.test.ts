// Covers an actor thread's tally and the batch it sends: counts of one series add up, observations are kept, the tally starts again after a batch, asks to be sent before a batch would exceed its limit, and the main thread refuses batches that name metrics, kinds or labels the catalog does not declare.
import t from 'tap';
import { MetricsBatch } from './batch.js';
import { MetricTally } from './tally.js';
import { limits } from '../../limits/limits.js';

t.test('counts of one series add up; each series is sent once per batch', async (t) => {
  const tally = new MetricTally();
  tally.count('pier_delivery_retries_total', { target: 'out' });
  tally.count('pier_delivery_retries_total', { target: 'out' }, 2);
  tally.count('pier_delivery_retries_total', { target: 'other' });
  tally.observe('pier_delivery_latency_seconds', { target: 'out', outcome: 'delivered' }, 0.5);
  tally.observe('pier_delivery_latency_seconds', { outcome: 'delivered', target: 'out' }, 1.5);
  const batch = tally.take();
  t.same(batch, {
    counters: [
      { name: 'pier_delivery_retries_total', labels: { target: 'out' }, by: 3 },
      { name: 'pier_delivery_retries_total', labels: { target: 'other' }, by: 1 },
    ],
    observations: [
      {
        name: 'pier_delivery_latency_seconds',
        labels: { target: 'out', outcome: 'delivered' },
        values: [0.5, 1.5],
      },
    ],
  });
  t.ok(MetricsBatch.safeParse(batch).success, 'the batch passes the main thread’s check');
  t.equal(tally.take(), null, 'nothing counted since');
});

t.test('the tally asks to be sent before a batch would hold too much', async (t) => {
  let full = 0;
  const tally: MetricTally = new MetricTally(() => {
    full++;
    t.ok(MetricsBatch.safeParse(tally.take()).success, 'a full batch is still a valid batch');
  });
  for (let i = 0; i < limits.maxMetricsBatchEntries * 2; i++)
    tally.observe('pier_payload_store_seconds', { backend: 'local', operation: 'put', outcome: 'ok' }, i);
  t.equal(full, 2);
});

t.test('batches the catalog does not declare are refused', async (t) => {
  const refused = (batch: unknown, why: RegExp) => {
    const parsed = MetricsBatch.safeParse(batch);
    t.notOk(parsed.success);
    t.match(parsed.error?.issues.map((i) => i.message).join('; '), why);
  };
  refused(
    { counters: [{ name: 'pier_made_up_total', labels: {}, by: 1 }], observations: [] },
    /Invalid option/,
  );
  refused(
    {
      counters: [{ name: 'pier_delivery_retries_total', labels: { target: 'x', file: 'a.edi' }, by: 1 }],
      observations: [],
    },
    /takes the labels target/,
  );
  refused(
    { counters: [{ name: 'pier_delivery_retries_total', labels: {}, by: 1 }], observations: [] },
    /takes the labels target/,
  );
  refused(
    {
      counters: [{ name: 'pier_delivery_latency_seconds', labels: { target: 'x', outcome: 'y' }, by: 1 }],
      observations: [],
    },
    /is not a counter/,
  );
  refused(
    {
      counters: [{ name: 'pier_delivery_retries_total', labels: { target: 'x' }, by: -1 }],
      observations: [],
    },
    /Too small|>=0/,
  );
});
