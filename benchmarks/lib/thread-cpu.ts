/**
 * CPU of each thread of one process, from /proc/<pid>/task/<tid>/stat, between two snapshots:
 * which thread carries what share of the process's CPU (Amdahl's law: a process whose busiest
 * thread carries a share s of its work tops out near 1/s cores). Shares are ratios of the same
 * process's ticks, so a machine shared with other work skews them far less than rates.
 * Threads are told apart by their name (`comm`): pier names its actor and pool threads.
 */
import { readdirSync, readFileSync } from 'node:fs';

export type ThreadSnapshot = Map<number, { name: string; ms: number }>;

export function threadSnapshot(pid: number): ThreadSnapshot {
  const threads: ThreadSnapshot = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // The name is between the first "(" and the last ") ": it may hold spaces and parentheses.
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(') '));
      const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      threads.set(Number(tid), { name, ms: (Number(fields[11]) + Number(fields[12])) * 10 });
    } catch {
      // the thread ended meanwhile
    }
  }
  return threads;
}

/** The names of the process's threads that start with `prefix`: an actor's (`file-writer`, `file-writer-2`, …). */
export function threadNames(pid: number, prefix: string): string[] {
  return [...threadSnapshot(pid).values()].map((t) => t.name).filter((name) => name.startsWith(prefix));
}

export interface ThreadShare {
  /** The thread's name, with its id when several share it. */
  thread: string;
  cpu_ms: number;
  /** Of the process's CPU between the snapshots, in per cent. */
  share_pct: number;
}

/** Per thread, busiest first: its CPU between `before` and `after` and its share of the process's. */
export function threadShares(before: ThreadSnapshot, after: ThreadSnapshot): ThreadShare[] {
  const used: { tid: number; name: string; ms: number }[] = [];
  for (const [tid, { name, ms }] of after) {
    const delta = ms - (before.get(tid)?.ms ?? 0);
    if (delta > 0) used.push({ tid, name, ms: delta });
  }
  const total = used.reduce((sum, t) => sum + t.ms, 0);
  const names = new Map<string, number>();
  for (const t of used) names.set(t.name, (names.get(t.name) ?? 0) + 1);
  return used
    .sort((a, b) => b.ms - a.ms)
    .map((t) => ({
      thread: names.get(t.name)! > 1 ? `${t.name}#${t.tid}` : t.name,
      cpu_ms: t.ms,
      share_pct: total > 0 ? Math.round((t.ms / total) * 1000) / 10 : 0,
    }));
}

/** The busiest `top` threads as one line: `name 18.5 %, name 12.0 %, …, n others 9.1 %`. */
export function sharesLine(shares: readonly ThreadShare[], top = 8): string {
  const shown = shares.slice(0, top).map((s) => `${s.thread} ${s.share_pct.toFixed(1)} %`);
  const rest = shares.slice(top);
  if (rest.length > 0)
    shown.push(`${rest.length} others ${rest.reduce((sum, s) => sum + s.share_pct, 0).toFixed(1)} %`);
  return shown.join(', ');
}
