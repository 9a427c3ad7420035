/** CPU time and memory of processes on this machine, from /proc (Linux). */
import { readdirSync, readFileSync } from 'node:fs';

/** utime + stime of a process (every thread) in milliseconds. */
export function cpuMsOf(pid: number): number {
  // Fields 14 and 15 of stat, in clock ticks of 1/100 s; the name before ") " may hold spaces.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * CPU milliseconds of the PostgreSQL processes on this machine: the backends connected to
 * `database` when given (other sessions' work on the same server is left out), else all.
 */
export function postgresCpuMs(database?: string): number {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
      // A backend's title: "postgres: <user> <database> <client> <state>".
      if (database && !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(` ${database} `)) continue;
      total += cpuMsOf(Number(pid));
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

/** Resident memory of a process in bytes (VmRSS). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}
