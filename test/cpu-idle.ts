/**
 * How idle the machine's CPUs were lately, from /proc/stat (Linux): the runner starts a file more
 * than its jobs while the cores sit idle (test/runner.ts). Only `idle` counts, not `iowait`: a core
 * waiting on a disk flush is not one a further file could use, and more flushes would only queue.
 */
import { readFileSync } from 'node:fs';

interface Sample {
  at: number;
  total: number;
  idle: number;
}

function sample(): Sample | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
    // cpu  user nice system idle iowait irq softirq steal guest guest_nice
    const ticks = line.trim().split(/\s+/).slice(1).map(Number);
    if (ticks.length < 4 || ticks.some((n) => !Number.isFinite(n))) return undefined;
    // guest and guest_nice are counted in user and nice already.
    const total = ticks.slice(0, 8).reduce((sum, n) => sum + n, 0);
    return { at: Date.now(), total, idle: ticks[3]! };
  } catch {
    return undefined;
  }
}

export interface IdleMeter {
  /** The share of CPU time idle over the last whole window (0 to 1); 0 where it cannot be read. */
  idle(): number;
  /** A new window starts now: what a file just started does is not yet in the last one. */
  restart(): void;
}

/** Idle share measured over windows of `windowMs`, each ending when `idle()` is asked after it. */
export function idleMeter(windowMs: number): IdleMeter {
  let start = sample();
  let last = 0;
  return {
    idle() {
      const now = sample();
      if (!start || !now) return 0;
      if (now.at - start.at < windowMs) return last;
      const total = now.total - start.total;
      last = total > 0 ? (now.idle - start.idle) / total : 0;
      start = now;
      return last;
    },
    restart() {
      start = sample();
      last = 0;
    },
  };
}
