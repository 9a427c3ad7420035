/** The figures of one case: throughput, latency percentiles, failures by kind, the series to plot. */

/** One message fired and what came of it. */
export interface Shot {
  /** ms since the case started, when the request went out and when its receipt was in. */
  startMs: number;
  endMs: number;
  /** null: the receipt said what it had to; else the kind of failure. */
  failure: string | null;
}

export interface LatencyFigures {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** The `p`th percentile (0–100) of sorted values, nearest rank. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Latencies (ms) of the messages whose receipts were right. */
export function latencyFigures(shots: readonly Shot[]): LatencyFigures {
  const ms = shots
    .filter((s) => s.failure === null)
    .map((s) => s.endMs - s.startMs)
    .sort((a, b) => a - b);
  const mean = ms.length ? ms.reduce((a, b) => a + b, 0) / ms.length : 0;
  return {
    p50: round2(percentile(ms, 50)),
    p90: round2(percentile(ms, 90)),
    p99: round2(percentile(ms, 99)),
    max: round2(ms.at(-1) ?? 0),
    mean: round2(mean),
  };
}

export function failuresByKind(shots: readonly Shot[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of shots) if (s.failure !== null) counts[s.failure] = (counts[s.failure] ?? 0) + 1;
  return counts;
}

/** Right receipts in each second of the case (the throughput-over-time plot). */
export function perSecond(shots: readonly Shot[]): number[] {
  const series: number[] = [];
  for (const s of shots) {
    if (s.failure !== null) continue;
    const second = Math.floor(s.endMs / 1000);
    while (series.length <= second) series.push(0);
    series[second]! += 1;
  }
  return series;
}

/** How many right receipts fell in each latency bucket (the distribution plot): bounds in ms. */
export function latencyHistogram(
  shots: readonly Shot[],
  buckets = 30,
): { from: number; to: number; count: number }[] {
  const ms = shots.filter((s) => s.failure === null).map((s) => s.endMs - s.startMs);
  if (ms.length === 0) return [];
  const max = Math.max(...ms);
  const width = Math.max(max / buckets, 0.01);
  const counts = new Array<number>(buckets).fill(0);
  for (const v of ms) counts[Math.min(buckets - 1, Math.floor(v / width))]! += 1;
  return counts.map((count, i) => ({ from: round2(i * width), to: round2((i + 1) * width), count }));
}
