/**
 * CPU of one PostgreSQL server on this machine, all of it: its postmaster and every process the
 * postmaster started (backends, WAL sender or receiver, startup, writer), so a standby's
 * replay counts as much as a primary's commits. Sampled every 200 ms, so a process that ends
 * meanwhile still counts up to its last sample.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cpuMsOf } from './cpu.js';

function childrenOf(parent: number): number[] {
  const pids: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      if (Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]) === parent) pids.push(Number(pid));
    } catch {
      // the process ended meanwhile
    }
  }
  return pids;
}

/** The postmaster's process id, from the first line of `postmaster.pid` in its data directory. */
export function postmasterOf(pgdata: string): number {
  return Number(readFileSync(`${pgdata}/postmaster.pid`, 'utf8').split('\n')[0]);
}

export function watchServerCpu(postmaster: number): { stop(): number } {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  let started = false;
  const sample = () => {
    for (const pid of [postmaster, ...childrenOf(postmaster)]) {
      try {
        const ms = cpuMsOf(pid);
        // A process started while watched counts from its start.
        if (!first.has(pid)) first.set(pid, started ? 0 : ms);
        last.set(pid, ms);
      } catch {
        // the process ended meanwhile
      }
    }
  };
  sample();
  started = true;
  const timer = setInterval(sample, 200);
  return {
    stop() {
      clearInterval(timer);
      sample();
      let total = 0;
      for (const [pid, ms] of last) total += ms - (first.get(pid) ?? ms);
      return total;
    },
  };
}
