/**
 * A real OpenSSH server for a test: Debian's /usr/sbin/sshd, started on a free loopback port
 * with its own generated host key and its own configuration (`-D -e -f`), serving SFTP only to a
 * temporary system user that logs in by password or by key. Files live in the user's home under
 * the test's temporary directory; `smallDisk` mounts a tiny tmpfs there for a full disk. All of
 * it (user, mount, daemon, files) is removed at teardown. The tests run as root: useradd,
 * chpasswd and mount need it.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';

const run = promisify(execFile);

export interface Sshd {
  host: string;
  port: number;
  user: string;
  password: string;
  /** The user's private key (OpenSSH format, no passphrase). */
  privateKey: string;
  /** The host key's fingerprint as `ssh-keygen -lf` prints it. */
  fingerprint: string;
  /** The user's home directory, as a path on this machine and on the server alike (no chroot). */
  home: string;
  /** Mounts a tmpfs of `bytes` at `<home>/<name>`, owned by the user, and answers its path. */
  smallDisk(name: string, bytes: number): Promise<string>;
  /** Gives a disk made by smallDisk a new size (tmpfs remount), keeping its files. */
  resizeDisk(dir: string, bytes: number): Promise<void>;
  /** A directory below home, owned by the user. */
  directory(name: string): Promise<string>;
  /** Stops the daemon (connections drop) and starts it again, with a new host key when asked. */
  restart(options?: { newHostKey?: boolean }): Promise<void>;
  /** The listening daemon's process id (its connections' processes are its descendants). */
  pid(): number | undefined;
  /** Arguments for OpenSSH's own clients (sftp -b, ssh) to log in by key, trusting only this host key. */
  clientArgs(): string[];
  stop(): Promise<void>;
}

interface Teardown {
  teardown(fn: () => Promise<void> | void): void;
}

async function waitForPort(port: number, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`sshd exited (${child.exitCode}): ${log()}`);
    const open = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`sshd did not listen on ${port}: ${log()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The settings an sftp instance signs in to `sshd` with: its address, the password and the host key pinned. */
export function sftpLogin(sshd: Sshd) {
  return {
    host: sshd.host,
    port: sshd.port,
    username: sshd.user,
    password: sshd.password,
    host_key_fingerprint: sshd.fingerprint,
  };
}

/** The processes below `pid` (its children, theirs, …), read from /proc. */
async function descendants(pid: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // The fourth field, after the command in parentheses, is the parent's id.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid) parents.set(Number(entry), ppid);
  }
  const out: number[] = [];
  const visit = (p: number) => {
    for (const [child, parent] of parents) {
      if (parent !== p) continue;
      out.push(child);
      visit(child);
    }
  };
  visit(pid);
  return out;
}

export async function startSshd(t: Teardown): Promise<Sshd> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'pier-sshd-'));
  await chmod(root, 0o755);
  const user = `psftp${randomBytes(4).toString('hex')}`;
  const password = `pw-${randomBytes(9).toString('base64url')}`;
  const home = path.join(root, 'home');
  const mounts: string[] = [];
  let child: ChildProcess | undefined;
  let stderr = '';
  const cleanups: (() => Promise<unknown>)[] = [];

  const stop = async () => {
    const c = child;
    child = undefined;
    if (c && c.exitCode === null) {
      // Each connection has its own sshd processes, which outlive the listener: end them too, so
      // a stop drops the connections as a server going down does.
      const sessions = await descendants(c.pid!);
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      for (const pid of sessions) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // ended already
        }
      }
      await exited;
    }
  };
  t.teardown(async () => {
    await stop();
    for (const m of mounts.reverse()) await run('umount', ['-l', m]).catch(() => {});
    for (const c of cleanups.reverse()) await c().catch(() => {});
    await rm(root, { recursive: true, force: true });
  });

  await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
  await run('useradd', ['-M', '-d', home, '-s', '/usr/sbin/nologin', user]);
  cleanups.push(() => run('userdel', [user]));
  await new Promise<void>((resolve, reject) => {
    const p = spawn('chpasswd', [], { stdio: ['pipe', 'ignore', 'pipe'] });
    p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`chpasswd exited ${code}`))));
    p.stdin.end(`${user}:${password}\n`);
  });
  const { stdout: ids } = await run('id', ['-u', user]);
  const { stdout: gids } = await run('id', ['-g', user]);
  const uid = Number(ids.trim());
  const gid = Number(gids.trim());
  await mkdir(home);
  await chown(home, uid, gid);

  const hostKey = path.join(root, 'host_ed25519');
  const newHostKey = async () => {
    await rm(hostKey, { force: true });
    await rm(`${hostKey}.pub`, { force: true });
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'pier-test-host', '-f', hostKey]);
  };
  await newHostKey();
  const userKey = path.join(root, 'user_ed25519');
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'pier-test-user', '-f', userKey]);
  const authorized = path.join(root, 'authorized_keys');
  await writeFile(authorized, await readFile(`${userKey}.pub`), { mode: 0o644 });

  const port = await freePort();
  const config = path.join(root, 'sshd_config');
  await writeFile(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `PidFile ${path.join(root, 'sshd.pid')}`,
      `AuthorizedKeysFile ${authorized}`,
      'StrictModes no',
      'UsePAM no',
      'PasswordAuthentication yes',
      'PubkeyAuthentication yes',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin no',
      `AllowUsers ${user}`,
      'Subsystem sftp internal-sftp',
      'ForceCommand internal-sftp',
      'AllowTcpForwarding no',
      'X11Forwarding no',
      'MaxSessions 50',
      'MaxStartups 100:30:200',
      'LogLevel ERROR',
      '',
    ].join('\n'),
  );
  const fingerprintOfHost = async () =>
    (await run('ssh-keygen', ['-lf', `${hostKey}.pub`])).stdout.split(' ')[1]!;

  const start = async () => {
    stderr = '';
    const c = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    c.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    child = c;
    await waitForPort(port, c, () => stderr);
  };
  await start();
  const knownHosts = path.join(root, 'known_hosts');

  const sshd: Sshd = {
    host: '127.0.0.1',
    port,
    user,
    password,
    privateKey: await readFile(userKey, 'utf8'),
    fingerprint: await fingerprintOfHost(),
    home,
    async smallDisk(name, bytes) {
      const dir = path.join(home, name);
      await mkdir(dir);
      await run('mount', [
        '-t',
        'tmpfs',
        '-o',
        `size=${bytes},mode=0755,uid=${uid},gid=${gid}`,
        'tmpfs',
        dir,
      ]);
      mounts.push(dir);
      return dir;
    },
    async resizeDisk(dir, bytes) {
      await run('mount', ['-o', `remount,size=${bytes}`, dir]);
    },
    async directory(name) {
      const dir = path.join(home, name);
      await mkdir(dir, { recursive: true });
      await chown(dir, uid, gid);
      return dir;
    },
    async restart(options = {}) {
      await stop();
      if (options.newHostKey) {
        await newHostKey();
        sshd.fingerprint = await fingerprintOfHost();
      }
      await start();
    },
    pid: () => child?.pid,
    clientArgs() {
      return [
        '-i',
        userKey,
        '-P',
        String(port),
        '-o',
        `UserKnownHostsFile=${knownHosts}`,
        '-o',
        'StrictHostKeyChecking=yes',
        '-o',
        'BatchMode=yes',
      ];
    },
    stop,
  };
  await writeFile(knownHosts, `[127.0.0.1]:${port} ${(await readFile(`${hostKey}.pub`, 'utf8')).trim()}\n`);
  return sshd;
}
