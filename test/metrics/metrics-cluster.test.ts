// Covers the cluster-wide gauges with two processes on one database: exactly one exports them (so a sum over the cluster is right), with the queue depth of a target that no process runs, and the other takes over once the exporter's process ends.
import t from 'tap';
import { must, parties, upload } from '../helpers/flow.js';
import { valueOf } from '../helpers/prometheus-text.js';
import { scrape } from '../helpers/scrape.js';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const first = await startTestServer(t, { env: { METRICS_PORT: '0' } });
const second = await startTestServer(t, { env: { METRICS_PORT: '0' }, db: first.db });
await parties(first);
// A writer that is stopped: what is sent to it stays queued.
await must(first, '/plugins/configs?type=file-writer', {
  name: 'parked',
  directory: '/nonexistent',
  enabled: false,
});

t.test('one process exports the cluster gauges, and the other takes over when it ends', async (t) => {
  for (const name of ['a.edi', 'b.edi']) {
    const made = await upload(
      first,
      { from: 'acme', to: 'globex', target: 'parked' },
      { name, content: name },
    );
    t.equal(made.status, 201);
  }
  const [a, b] = await Promise.all([scrape(first), scrape(second)]);
  t.equal(
    valueOf(a, 'pier_cluster_metrics_exporter') + valueOf(b, 'pier_cluster_metrics_exporter'),
    1,
    'exactly one exporter',
  );
  const pending = (m: typeof a) =>
    valueOf(m, 'pier_deliveries_pending', { target: 'parked', state: 'queued' });
  t.equal(pending(a) + pending(b), 2, 'two queued deliveries, counted once over the cluster');
  t.equal(valueOf(a, 'pier_messages_in_flight') + valueOf(b, 'pier_messages_in_flight'), 2);

  const [exporter, other] =
    valueOf(a, 'pier_cluster_metrics_exporter') === 1 ? [first, second] : [second, first];
  t.equal(
    valueOf(exporter === first ? b : a, 'pier_deliveries_pending', { target: 'parked', state: 'queued' }),
    0,
  );
  await exporter.close();
  const taken = await waitFor(async () => {
    const m = await scrape(other);
    return valueOf(m, 'pier_cluster_metrics_exporter') === 1 ? m : undefined;
  }, 'the other process exporting');
  t.equal(pending(taken), 2);
});
