/**
 * What code that counts sees, in whichever thread it runs: the main thread's registry
 * (runtime/metrics/registry.ts) or an actor thread's tally (tally.ts). One increment or one
 * observation is all a message costs on the hot path.
 */
import type { CounterName, HistogramName, LabelsOf } from './catalog.js';

export interface MetricsPort {
  count<N extends CounterName>(name: N, labels: LabelsOf<N>, by?: number): void;
  /** One observation of a histogram (seconds for the latencies). */
  observe<N extends HistogramName>(name: N, labels: LabelsOf<N>, value: number): void;
}

/** Counts nothing: for code run without a registry (the CLI, tests of one part). */
export const noMetrics: MetricsPort = {
  count: () => {},
  observe: () => {},
};
