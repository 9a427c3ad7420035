// Covers the delivery metrics when a partner fails: file-poller → http-poster against a real HTTP server answering 500 and 503 before 200 (two retryable failures, two retries, then delivered), and 400 (a permanent failure, failed at once), counted by target and outcome with their latency.
import { createServer } from 'node:http';
import { mkdir, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import t from 'tap';
import { fileFlow, must, parties, tempDir, waitForMessages } from '../helpers/flow.js';
import { valueOf } from '../helpers/prometheus-text.js';
import { scrapeUntil } from '../helpers/scrape.js';
import { startTestServer } from '../helpers/server.js';

/** Answers for the coming requests, in order; 200 once they run out. */
const answers: number[] = [];
const partner = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.statusCode = answers.shift() ?? 200;
    response.end('ok');
  });
});
await new Promise<void>((resolve) => partner.listen(0, '127.0.0.1', resolve));
t.teardown(() => new Promise<void>((resolve) => partner.close(() => resolve())));

const server = await startTestServer(t, { env: { METRICS_PORT: '0' } });
const dir = await tempDir(t);
await parties(server);
await mkdir(path.join(dir, 'in', 'globex'), { recursive: true });
await must(server, '/plugins/configs?type=http-poster', {
  name: 'erp',
  url: `http://127.0.0.1:${(partner.address() as AddressInfo).port}/inbound`,
  retry_interval: 1,
  retry_backoff: 1,
  max_attempts: 4,
});
await fileFlow(server, dir, { poller: { polling_interval: 1 }, to: '*', target: 'erp' });

t.test('retries and a permanent failure, by target and outcome', async (t) => {
  answers.push(500, 503);
  await writeFile(path.join(dir, 'in', 'globex', 'retried.edi'), 'UNB+1');
  await waitForMessages(server, 'status=Delivered', (l) => l.length === 1, 'delivered after retries', 30_000);
  answers.push(400);
  await writeFile(path.join(dir, 'in', 'globex', 'refused.edi'), 'UNB+2');
  await waitForMessages(server, 'status=Error', (l) => l.length === 1, 'failed at once');

  const m = await scrapeUntil(
    server,
    (m) => valueOf(m, 'pier_deliveries_finished_total', { target: 'erp', outcome: 'failed' }) === 1,
    'the failure counted',
  );
  const attempts = (outcome: string) =>
    valueOf(m, 'pier_delivery_attempts_total', { target: 'erp', outcome });
  t.equal(attempts('retryable_failure'), 2);
  t.equal(attempts('ok'), 1);
  t.equal(attempts('permanent_failure'), 1);
  t.equal(valueOf(m, 'pier_delivery_retries_total', { target: 'erp' }), 2, 'attempts 2 and 3 of the first');
  t.equal(valueOf(m, 'pier_deliveries_finished_total', { target: 'erp', outcome: 'delivered' }), 1);
  const finished = (m.get('pier_deliveries_finished_total')?.samples ?? []).map((s) => s.labels.outcome);
  t.same(
    [...new Set(finished)].sort(),
    ['delivered', 'failed'],
    'finished counts only final states, no retrying',
  );
  t.equal(
    valueOf(m, 'pier_delivery_latency_seconds_count', { target: 'erp', outcome: 'retrying' }),
    0,
    'nor does the latency of a delivery not finished',
  );
  t.equal(valueOf(m, 'pier_delivery_latency_seconds_count', { target: 'erp', outcome: 'failed' }), 1);
  const retried = valueOf(m, 'pier_delivery_latency_seconds_sum', { target: 'erp', outcome: 'delivered' });
  t.ok(retried >= 2, `the delivered one waited for two retries: ${retried} s`);
});
