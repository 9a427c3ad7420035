/**
 * An actor thread's counts, kept in plain maps until the thread sends them to the main thread
 * as one batch (batch.ts): prom-client's registry lives in the main thread, which exports what
 * every thread of the process counted, and keeps it when a thread restarts. A count is one map
 * lookup and an addition; an observation is one push.
 */
import {
  metricCatalog,
  type CounterName,
  type HistogramName,
  type LabelsOf,
  type MetricName,
} from './catalog.js';
import { type MetricsBatch } from './batch.js';
import type { MetricsPort } from './port.js';
import { limits } from '../../limits/limits.js';

type Labels = Record<string, string>;

/** The series' key: its name and label values in the catalog's order. */
function keyOf(name: MetricName, labels: Labels): string {
  let key: string = name;
  for (const label of metricCatalog[name].labels) key += `\u0000${labels[label]}`;
  return key;
}

export class MetricTally implements MetricsPort {
  #counters = new Map<string, { name: CounterName; labels: Labels; by: number }>();
  #observations = new Map<string, { name: HistogramName; labels: Labels; values: number[] }>();
  #held = 0;

  /** `onFull`: called once the tally holds as much as one batch may carry (send it then). */
  constructor(private readonly onFull: () => void = () => {}) {}

  count<N extends CounterName>(name: N, labels: LabelsOf<N>, by = 1): void {
    const key = keyOf(name, labels);
    const series = this.#counters.get(key);
    if (series) series.by += by;
    else {
      this.#counters.set(key, { name, labels: { ...labels }, by });
      this.#grew();
    }
  }

  observe<N extends HistogramName>(name: N, labels: LabelsOf<N>, value: number): void {
    const key = keyOf(name, labels);
    const series = this.#observations.get(key);
    if (series) series.values.push(value);
    else this.#observations.set(key, { name, labels: { ...labels }, values: [value] });
    this.#grew();
  }

  #grew(): void {
    // One short of the limit, and again at every count until it is taken: the batch never holds
    // more entries or values than it may (a thread not yet ready cannot send it).
    if (++this.#held >= limits.maxMetricsBatchEntries - 1) this.onFull();
  }

  /** What was counted since the last call, or null when nothing was; the tally starts again. */
  take(): MetricsBatch | null {
    if (this.#counters.size === 0 && this.#observations.size === 0) return null;
    const batch: MetricsBatch = {
      counters: [...this.#counters.values()],
      observations: [...this.#observations.values()],
    };
    this.#counters = new Map();
    this.#observations = new Map();
    this.#held = 0;
    return batch;
  }
}
