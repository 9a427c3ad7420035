/** CPU time and memory of processes on this machine, from /proc (Linux). */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** utime + stime of a process (every thread) in milliseconds. */
export function cpuMsOf(pid: number): number {
  // Fields 14 and 15 of stat, in clock ticks of 1/100 s; the name before ") " may hold spaces.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * CPU nanoseconds the processes `pids` have run, from the scheduler's own accounting
 * (schedstat): fine enough to time one statement of a PostgreSQL backend, where `stat` counts
 * in ticks of 10 ms. Only each process's first thread is counted, all a backend has.
 */
export function runNsOf(pids: readonly number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      total += Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

/**
 * CPU milliseconds of the PostgreSQL processes on this machine: the backends connected to
 * `database` when given (other sessions' work on the same server is left out), else all.
 */
export function postgresCpuMs(database?: string): number {
  let total = 0;
  for (const ms of postgresCpuByPid(database).values()) total += ms;
  return total;
}

/** postgresCpuMs per backend process id. */
export function postgresCpuByPid(database?: string): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
      // A backend's title: "postgres: <user> <database> <client> <state>".
      if (database && !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(` ${database} `)) continue;
      byPid.set(Number(pid), cpuMsOf(Number(pid)));
    } catch {
      // the process ended meanwhile
    }
  }
  return byPid;
}

/**
 * PostgreSQL CPU of `database`'s backends over a stretch of time, sampled every 200 ms so a
 * backend that ends meanwhile (a pool closing a connection) still counts up to its last sample.
 */
export function watchPostgresCpu(database: string): { read(): number; stop(): number } {
  const first = postgresCpuByPid(database);
  const last = new Map(first);
  const sample = () => {
    for (const [pid, ms] of postgresCpuByPid(database)) last.set(pid, ms);
  };
  const timer = setInterval(sample, 200);
  /** Milliseconds so far, sampled now. */
  const read = () => {
    sample();
    let total = 0;
    for (const [pid, ms] of last) total += ms - (first.get(pid) ?? 0);
    return total;
  };
  return {
    read,
    stop() {
      clearInterval(timer);
      return read();
    },
  };
}

/** Resident memory of a process in bytes (VmRSS). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** Busy and total CPU time of the whole machine in clock ticks (the `cpu` line of /proc/stat). */
export function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is counted in user already).
  const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - fields[3]! - fields[4]!, total };
}

/** `openssl speed rsa2048`: RSA-2048 private-key operations per second on one core. */
export function opensslRsaSignsPerSecond(seconds = 2): number {
  const speed = execFileSync('openssl', ['speed', '-seconds', String(seconds), 'rsa2048'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  }).toString();
  return Number(/^rsa 2048 bits\s+\S+s\s+\S+s\s+([\d.]+)/m.exec(speed)?.[1] ?? NaN);
}
