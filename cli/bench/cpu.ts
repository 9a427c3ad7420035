/**
 * The server's CPU as `pier bench` measures it (Linux /proc): the CPU time of a process, the
 * process listening on a loopback port (a pier on this machine), and this machine's speed in
 * RSA-2048 private-key operations a second, so CPU per message can be told in a unit that
 * carries across machines.
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** utime + stime of a process, every thread, in milliseconds; null when it cannot be read. */
export function cpuMsOf(pid: number): number | null {
  try {
    // Fields 14 and 15 of stat, in clock ticks of 1/100 s; the name before ") " may hold spaces.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/**
 * The process that listens on `port` of this machine, when this user may see it: the socket's
 * inode from /proc/net/tcp and tcp6, then the process holding it among /proc/<pid>/fd.
 */
export function listeningPid(port: number): number | null {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local_address is HEXIP:HEXPORT; state 0A is LISTEN; the inode is the tenth field.
      if (f.length > 9 && f[3] === '0A' && parseInt(f[1]!.split(':')[1]!, 16) === port) inodes.add(f[9]!);
    }
  }
  if (inodes.size === 0) return null;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const link = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (link.startsWith('socket:[') && inodes.has(link.slice(8, -1))) return Number(pid);
      } catch {
        // closed meanwhile
      }
    }
  }
  return null;
}

const rsaKey = (() => {
  let key: ReturnType<typeof generateKeyPairSync>['privateKey'] | undefined;
  return () => (key ??= generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
})();

export interface RsaSpeed {
  ops_per_s: number;
  /** `openssl speed` (the unit of the repository's benchmarks), else node:crypto in this process. */
  source: 'openssl speed' | 'node:crypto';
}

/**
 * RSA-2048 private-key operations per CPU second on one core: `openssl speed -seconds 1 rsa2048`
 * where openssl is installed, else signing with node:crypto for one second of this thread's CPU.
 * Both divide by CPU time, not wall time, so a busy machine does not make its cores look slower
 * (openssl speed does so unless told -elapsed).
 */
export function rsa2048Speed(): RsaSpeed {
  try {
    const text = execFileSync('openssl', ['speed', '-seconds', '1', 'rsa2048'], {
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 30_000,
    }).toString();
    const ops = Number(/^rsa 2048 bits\s+\S+s\s+\S+s\s+([\d.]+)/m.exec(text)?.[1]);
    if (ops > 0) return { ops_per_s: Math.round(ops), source: 'openssl speed' };
  } catch {
    // no openssl here: measure in this process
  }
  const key = rsaKey();
  const data = Buffer.from('pier bench');
  sign('sha256', data, key);
  let n = 0;
  const start = process.cpuUsage();
  let cpuUs = 0;
  while (cpuUs < 1_000_000) {
    sign('sha256', data, key);
    n++;
    const used = process.cpuUsage(start);
    cpuUs = used.user + used.system;
  }
  return { ops_per_s: Math.round((n / cpuUs) * 1_000_000), source: 'node:crypto' };
}
