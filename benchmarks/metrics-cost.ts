/**
 * What the metrics cost per message, measured in isolation (the end-to-end benchmarks' noise on
 * a shared machine is larger than the figure): nanoseconds per count and per observation in an
 * actor thread's tally (protocol/metrics/tally.ts), per value added to the main thread's
 * registry from a batch (runtime/metrics/registry.ts, `apply`), and the time of one scrape
 * (`text()`) with the series a busy process has. A file-flow message makes four counts or
 * observations in the threads (accepted, attempt, finished, latency) and four in the main thread
 * when applied. Prints one JSON line.
 * Options: --counts <n> (default 2,000,000).
 */
import { parseArgs } from 'node:util';
import { MetricTally } from '../protocol/metrics/tally.js';
import { PierMetrics } from '../runtime/metrics/registry.js';

const { values } = parseArgs({ options: { counts: { type: 'string' } } });
const n = Number(values.counts ?? 2_000_000);
const targets = ['out', 'partner-a', 'partner-b', 'archive'];

function nsPer(work: () => void, times: number): number {
  const started = process.hrtime.bigint();
  work();
  return Number(process.hrtime.bigint() - started) / times;
}

// Warm up the JIT, then measure.
for (let round = 0; round < 2; round++) {
  const tally = new MetricTally(() => tally.take());
  const count = nsPer(() => {
    for (let i = 0; i < n; i++)
      tally.count('pier_deliveries_finished_total', { target: targets[i & 3]!, outcome: 'delivered' });
  }, n);
  const observe = nsPer(() => {
    for (let i = 0; i < n; i++)
      tally.observe(
        'pier_delivery_latency_seconds',
        { target: targets[i & 3]!, outcome: 'delivered' },
        i / n,
      );
  }, n);
  const metrics = new PierMetrics({ version: 'bench' });
  const batches: ReturnType<MetricTally['take']>[] = [];
  const collector = new MetricTally(() => batches.push(collector.take()));
  for (let i = 0; i < n; i++) {
    collector.count('pier_deliveries_finished_total', { target: targets[i & 3]!, outcome: 'delivered' });
    collector.observe(
      'pier_delivery_latency_seconds',
      { target: targets[i & 3]!, outcome: 'delivered' },
      i / n,
    );
  }
  batches.push(collector.take());
  const apply = nsPer(() => {
    for (const batch of batches) if (batch) metrics.apply(batch, 'file-writer:bench');
  }, 2 * n);
  const scrapes = 20;
  const started = process.hrtime.bigint();
  for (let i = 0; i < scrapes; i++) await metrics.text();
  const scrapeMs = Number(process.hrtime.bigint() - started) / 1e6 / scrapes;
  if (round === 1)
    console.log(
      JSON.stringify({
        benchmark: 'metrics-cost',
        node: process.version,
        counts: n,
        tally_count_ns: Math.round(count),
        tally_observe_ns: Math.round(observe),
        registry_apply_ns_per_value: Math.round(apply),
        scrape_ms: Math.round(scrapeMs * 100) / 100,
      }),
    );
}
process.exit(0);
