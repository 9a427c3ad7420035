/**
 * The process's Prometheus registry (prom-client): every metric of the catalog
 * (protocol/metrics/catalog.ts), Node's own (event-loop lag, heap, GC, process start time),
 * `pier_build_info`, and the gauges other parts read at scrape time (`gauge`). The main thread
 * counts into it directly; actor threads' batches are added with `apply`. One per runtime, so
 * two runtimes in one process (tests) keep their counts apart.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import {
  metricCatalog,
  metricNames,
  type CounterName,
  type HistogramName,
  type LabelsOf,
} from '../../protocol/metrics/catalog.js';
import type { MetricsBatch } from '../../protocol/metrics/batch.js';
import type { MetricsPort } from '../../protocol/metrics/port.js';
import { limits } from '../../limits/limits.js';

/** Reads a gauge's current values when Prometheus scrapes: `set(labels, value)` per series. */
export type GaugeReader = (
  set: (labels: Record<string, string>, value: number) => void,
) => void | Promise<void>;

export class PierMetrics implements MetricsPort {
  readonly registry = new Registry();
  readonly #counters = new Map<CounterName, Counter>();
  readonly #histograms = new Map<HistogramName, Histogram>();

  /**
   * False when the process exports no metrics (METRICS_PORT=off): then nothing is counted,
   * Node's own collectors (GC and event-loop observers) are not started, and actor threads are
   * told to count nothing, so turning the endpoint off also takes away what it costs.
   */
  readonly counting: boolean;

  constructor(build: { version: string; counting?: boolean }) {
    this.counting = build.counting ?? true;
    if (this.counting)
      collectDefaultMetrics({
        register: this.registry,
        eventLoopMonitoringPrecision: limits.eventLoopSampleMs,
      });
    for (const name of metricNames) {
      const entry = metricCatalog[name];
      const common = { name, help: entry.help, labelNames: [...entry.labels], registers: [this.registry] };
      if (entry.kind === 'counter') this.#counters.set(name as CounterName, new Counter(common));
      else
        this.#histograms.set(
          name as HistogramName,
          new Histogram({ ...common, buckets: [...(entry as { buckets: readonly number[] }).buckets] }),
        );
    }
    new Gauge({
      name: 'pier_build_info',
      help: 'Always 1; the labels say which pier version this process runs',
      labelNames: ['version'],
      registers: [this.registry],
    }).set({ version: build.version }, 1);
  }

  count<N extends CounterName>(name: N, labels: LabelsOf<N>, by = 1): void {
    if (!this.counting) return;
    this.#counters.get(name)!.inc(labels, by);
  }

  observe<N extends HistogramName>(name: N, labels: LabelsOf<N>, value: number): void {
    if (!this.counting) return;
    this.#histograms.get(name)!.observe(labels, value);
  }

  /** Each running actor thread's own database connections, as its latest batch said. */
  readonly #threadPools = new Map<string, NonNullable<MetricsBatch['pool']>>();

  /**
   * Adds what an actor thread (`thread`: its instance) counted, already checked against the
   * catalog by its schema, and keeps the state of its connections.
   */
  apply(batch: MetricsBatch, thread: string): void {
    if (batch.pool) this.#threadPools.set(thread, batch.pool);
    for (const c of batch.counters) this.#counters.get(c.name as CounterName)?.inc(c.labels, c.by);
    for (const o of batch.observations) {
      const histogram = this.#histograms.get(o.name as HistogramName);
      for (const value of o.values) histogram?.observe(o.labels, value);
    }
  }

  /** A thread ended: its connections are gone with it. */
  threadEnded(thread: string): void {
    this.#threadPools.delete(thread);
  }

  /** The actor threads' connections summed (the gauge pier_db_pool_connections, pool=actors). */
  threadPools(): { in_use: number; idle: number; waiting: number } {
    const sum = { in_use: 0, idle: 0, waiting: 0 };
    for (const p of this.#threadPools.values()) {
      sum.in_use += p.in_use;
      sum.idle += p.idle;
      sum.waiting += p.waiting;
    }
    return sum;
  }

  /**
   * A gauge whose values are read at scrape time. Series not set by the reader are dropped, so
   * an instance that was deleted disappears instead of keeping its last value.
   */
  gauge(name: string, help: string, labelNames: readonly string[], read: GaugeReader): void {
    new Gauge({
      name,
      help,
      labelNames: [...labelNames],
      registers: [this.registry],
      async collect() {
        this.reset();
        await read((labels, value) => this.set(labels, value));
      },
    });
  }

  /** The text exposition format, what `GET /metrics` answers. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
