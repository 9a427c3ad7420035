/**
 * A case's progress sampled once a second: requests sent, receipts answered, documents written.
 * The backlog is what the operator waits for: receipts answered (processed) whose documents are
 * not yet written; in flight are requests sent and not yet answered.
 */

export interface Progress {
  sent: number;
  /** Receipts of any kind; `ok` those that said processed with the right MIC. */
  answered: number;
  ok: number;
  /** null without a writer. */
  written: number | null;
}

export interface Sample extends Progress {
  /** Seconds since the case began. */
  s: number;
}

export interface BacklogRecorder {
  /** The samples so far, one more taken now. */
  stop(): Sample[];
}

export function recordBacklog(progress: () => Progress, intervalMs = 1000): BacklogRecorder {
  const t0 = performance.now();
  const samples: Sample[] = [];
  const take = () => samples.push({ s: (performance.now() - t0) / 1000, ...progress() });
  take();
  const timer = setInterval(take, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}

export const backlogOf = (x: Progress) => (x.written === null ? 0 : x.ok - x.written);
export const inFlightOf = (x: Progress) => x.sent - x.answered;

/** Least-squares slope of y over x (units of y per unit of x); 0 with fewer than two points. */
export function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((a, p) => a + p.x, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/** Whole-second samples as one compact line: `backlog` (in flight) per second. */
export function seriesLine(samples: readonly Sample[]): string {
  return samples
    .map((x) => (x.written === null ? `${inFlightOf(x)}` : `${backlogOf(x)}(${inFlightOf(x)})`))
    .join(' ');
}
