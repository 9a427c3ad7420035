// Covers GET /metrics after a real file flow (file-poller → route → file-writer): messages accepted and refused by source, deliveries and attempts by target with their latency, payload store calls, instance states, the cluster gauges, Node's own metrics, and the endpoint's own answers (loopback only, 404, 405, not on the API port).
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { pollerToWriter, sendByHand, tempDir, waitForMessages } from '../helpers/flow.js';
import { valueOf } from '../helpers/prometheus-text.js';
import { scrape, scrapeUntil } from '../helpers/scrape.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t, { env: { METRICS_PORT: '0' } });
const dir = await tempDir(t);
const { inbox } = await pollerToWriter(server, dir);

t.test('the endpoint listens on loopback only, and answers only GET /metrics', async (t) => {
  t.match(server.metricsUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
  const text = await fetch(`${server.metricsUrl}/metrics`);
  t.equal(text.status, 200);
  t.match(text.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  t.equal((await fetch(`${server.metricsUrl}/other`)).status, 404);
  const post = await fetch(`${server.metricsUrl}/metrics`, { method: 'POST' });
  t.equal(post.status, 405);
  t.equal(post.headers.get('allow'), 'GET, HEAD');
  const onApi = await server.call('GET', '/metrics');
  t.equal(onApi.status, 404, 'the API port does not serve the metrics');
});

t.test('three files delivered and one refused are counted, by source and by target', async (t) => {
  // One file above the inline limit (64 KiB), so the payload store is used.
  const large = 'X'.repeat(100 * 1024);
  await writeFile(path.join(inbox, 'globex', 'a.edi'), 'one');
  await writeFile(path.join(inbox, 'globex', 'b.edi'), 'two');
  await writeFile(path.join(inbox, 'globex', 'large.edi'), large);
  await writeFile(path.join(inbox, 'top-level.txt'), 'no party directory: refused');
  await waitForMessages(server, 'status=Delivered', (l) => l.length === 3, 'three delivered');
  await waitForMessages(server, 'status=Refused', (l) => l.length === 1, 'one refused');

  const m = await scrapeUntil(
    server,
    (m) =>
      valueOf(m, 'pier_deliveries_finished_total', { target: 'out', outcome: 'delivered' }) === 3 &&
      valueOf(m, 'pier_messages_accepted_total', { source: 'in', outcome: 'refused' }) === 1,
    'the counts of the flow',
  );
  t.equal(valueOf(m, 'pier_messages_accepted_total', { source: 'in', outcome: 'accepted' }), 3);
  t.equal(valueOf(m, 'pier_messages_accepted_total', { source: 'in', outcome: 'refused' }), 1);
  t.equal(valueOf(m, 'pier_messages_accepted_total', { source: 'in', outcome: 'duplicate' }), 0);
  t.equal(valueOf(m, 'pier_delivery_attempts_total', { target: 'out', outcome: 'ok' }), 3);
  t.equal(valueOf(m, 'pier_delivery_retries_total', { target: 'out' }), 0);
  t.equal(valueOf(m, 'pier_delivery_latency_seconds_count', { target: 'out', outcome: 'delivered' }), 3);
  const sum = valueOf(m, 'pier_delivery_latency_seconds_sum', { target: 'out', outcome: 'delivered' });
  t.ok(sum > 0 && sum < 60, `latency sum ${sum} s`);
  t.equal(
    valueOf(m, 'pier_delivery_latency_seconds_bucket', { target: 'out', outcome: 'delivered', le: '+Inf' }),
    3,
  );
  t.equal(m.get('pier_delivery_latency_seconds')?.type, 'histogram');

  // The large file was put by the poller's thread and read by the writer's: both timed.
  const store = m.get('pier_payload_store_seconds')!;
  const calls = store.samples.filter((s) => s.name === 'pier_payload_store_seconds_count');
  t.ok(calls.length >= 2, `store operations timed: ${calls.map((s) => s.labels.operation).join(', ')}`);
  for (const s of calls) t.match(s.labels, { backend: 'local', outcome: 'ok' });

  // Gauges read at the scrape.
  t.equal(valueOf(m, 'pier_instance_state', { type: 'file-poller', name: 'in', state: 'running' }), 1);
  t.equal(valueOf(m, 'pier_instance_state', { type: 'file-poller', name: 'in', state: 'error' }), 0);
  t.equal(valueOf(m, 'pier_instance_state', { type: 'file-writer', name: 'out', state: 'running' }), 1);
  t.equal(valueOf(m, 'pier_cluster_metrics_exporter'), 1, 'the only process exports the cluster gauges');
  t.equal(valueOf(m, 'pier_messages_in_flight'), 0);
  t.same(m.get('pier_deliveries_pending')?.samples, [], 'nothing pending');
  t.ok(m.has('pier_alerts_raised'), 'alerts raised, by code');
  t.equal(valueOf(m, 'pier_alerts_open', { code: 'storage_failed' }), 0);
  t.equal(valueOf(m, 'pier_sse_subscribers'), 0);
  t.same(
    m
      .get('pier_db_pool_connections')!
      .samples.map((s) => `${s.labels.pool} ${s.labels.state}`)
      .sort(),
    [
      'actors idle',
      'actors in_use',
      'actors waiting',
      'flow idle',
      'flow in_use',
      'flow waiting',
      'orm idle',
      'orm in_use',
      'orm waiting',
    ],
  );
  t.equal(valueOf(m, 'pier_db_pool_connections', { pool: 'flow', state: 'waiting' }), 0);
  // The poller accepted and the writer claimed on their own threads' connections, which their
  // metrics batches report (one a second).
  await scrapeUntil(
    server,
    (m) => valueOf(m, 'pier_db_pool_connections', { pool: 'actors', state: 'idle' }) >= 2,
    "the actor threads' connections, one at least for the poller and one for the writer",
  );
});

t.test('a message sent by hand is counted by the main thread, on its flow connections', async (t) => {
  const fields = { from: 'acme', to: 'globex', target: 'out' };
  const file = { name: 'hand.edi', content: 'x' };
  await sendByHand(server, fields, file, (m) => m.status === 'Delivered', 'delivered');
  const m = await scrapeUntil(
    server,
    (m) => valueOf(m, 'pier_deliveries_finished_total', { target: 'out', outcome: 'delivered' }) === 4,
    'the fourth delivery',
  );
  t.equal(valueOf(m, 'pier_messages_accepted_total', { source: 'api', outcome: 'accepted' }), 1);
  t.ok(
    valueOf(m, 'pier_db_pool_connections', { pool: 'flow', state: 'idle' }) >= 1,
    'the acceptance used one',
  );
});

t.test("the process's own metrics and its version", async (t) => {
  const m = await scrape(server);
  const version = m.get('pier_build_info')!.samples[0]!;
  t.match(version.labels, { version: /^\d+\.\d+\.\d+/ });
  t.equal(version.value, 1);
  const started = valueOf(m, 'process_start_time_seconds');
  t.ok(started > Date.now() / 1000 - 3600 && started <= Date.now() / 1000, 'process start time');
  for (const name of [
    'nodejs_eventloop_lag_seconds',
    'nodejs_heap_size_used_bytes',
    'nodejs_gc_duration_seconds',
    'process_resident_memory_bytes',
  ])
    t.ok(m.has(name), name);
});

t.test('the Grafana dashboard and the alerting rules use only names pier exports', async (t) => {
  const m = await scrape(server);
  const root = path.join(import.meta.dirname, '..', '..', 'deploy');
  const texts = await Promise.all([
    readFile(path.join(root, 'grafana', 'pier-dashboard.json'), 'utf8'),
    readFile(path.join(root, 'prometheus', 'pier-alerts.yml'), 'utf8'),
  ]);
  const used = new Set(texts.flatMap((text) => text.match(/\b(?:pier|nodejs|process)_[a-z0-9_]+/g) ?? []));
  t.ok(used.size > 15, `${used.size} names used`);
  const exported = (name: string) =>
    m.has(name) || m.has(name.replace(/_(bucket|sum|count)$/, '')) || name.startsWith('pier_check');
  for (const name of used) t.ok(exported(name), `${name} is exported`);
  for (const family of m.values())
    for (const s of family.samples)
      t.notOk('instance' in s.labels || 'job' in s.labels, `${s.name}: no label Prometheus sets itself`);
});

t.test('a metrics port that is taken does not stop pier', async (t) => {
  const taken = new URL(server.metricsUrl!).port;
  const second = await startTestServer(t, { env: { METRICS_PORT: taken } });
  t.equal(second.metricsUrl, undefined, 'no endpoint');
  const health = await second.call('GET', '/health');
  t.equal(health.status, 200, 'the server runs');
});
