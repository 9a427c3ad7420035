// Covers METRICS_PORT=off: no endpoint, and nothing counted either (main thread, actor threads, payload store timing, Node's own collectors), so the switch also takes away what metrics cost; the benchmarks' "without metrics" runs rely on it.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { pollerToWriter, tempDir, waitForMessages } from '../helpers/flow.js';
import { parsePrometheusText } from '../helpers/prometheus-text.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t, { env: { METRICS_PORT: 'off' } });
const dir = await tempDir(t);
const { inbox, outbox } = await pollerToWriter(server, dir);

t.test('a flow runs as usual and leaves no count behind', async (t) => {
  t.equal(server.metricsUrl, undefined, 'no endpoint listens');
  // One file above the inline limit, so the payload store is called by both threads.
  const large = 'X'.repeat(100 * 1024);
  await writeFile(path.join(inbox, 'globex', 'a.edi'), 'one');
  await writeFile(path.join(inbox, 'globex', 'large.edi'), large);
  await waitForMessages(server, 'status=Delivered', (l) => l.length === 2, 'two delivered');
  t.equal(await readFile(path.join(outbox, 'acme', 'large.edi'), 'utf8'), large, 'the document is written');
  // Longer than an actor thread's metrics interval (1 s): a batch would have arrived by now.
  await new Promise((resolve) => setTimeout(resolve, 1500));

  const families = parsePrometheusText(await server.ctx.runtime!.metrics.text());
  for (const name of [
    'pier_messages_accepted_total',
    'pier_deliveries_finished_total',
    'pier_delivery_attempts_total',
    'pier_delivery_latency_seconds',
    'pier_payload_store_seconds',
  ])
    t.same(families.get(name)?.samples ?? [], [], `${name} has no samples`);
  t.notOk(families.has('nodejs_gc_duration_seconds'), "Node's collectors are not started");
  t.same(
    server.ctx.runtime!.metrics.threadPools(),
    { in_use: 0, idle: 0, waiting: 0 },
    'no thread sent a batch',
  );
  t.equal(families.get('pier_build_info')?.samples[0]?.value, 1, 'the build is still named');
});
