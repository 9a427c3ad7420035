/** A real `pier serve` in a child process, so the load generator does not share its thread. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../cli/bench/free-port.js';
import { pierEntry } from './pier-entry.js';

export interface ServerProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startServerProcess(
  databaseUrl: string,
  env: Record<string, string> = {},
  /** More arguments of `pier serve`, such as `--dev`. */
  serveArgs: string[] = [],
  /** The script node runs: this checkout's pier unless told (pier-entry.ts). */
  entry: string = pierEntry(),
): Promise<ServerProcess> {
  const port = await freePort();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pier-bench-'));
  // PIER_BENCH_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) profiles the server;
  // PIER_BENCH_STDOUT=1 passes its standard output through, into this process's (V8's `--trace-opt`).
  const nodeArgs = (process.env.PIER_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, entry, 'serve', ...serveArgs], {
    cwd: dataDir,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PIER_DATA_DIR: dataDir,
      HTTP_PORT: String(port),
      HTTP_HOST: '127.0.0.1',
      // PIER_BENCH_LOG_LEVEL=info measures what the log lines cost.
      LOG_LEVEL: process.env.PIER_BENCH_LOG_LEVEL ?? 'warn',
      ...env,
    },
    stdio: ['ignore', process.env.PIER_BENCH_STDOUT ? 'inherit' : 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  // /ready, not /health: a process that is still starting answers every API call 503 NOT_READY
  // (on a loaded machine the first setup call came before it was ready).
  for (let i = 0; i < 600; i++) {
    try {
      const r = await fetch(`${url}/ready`);
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error(`pier serve exited with ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
      // Its data directory holds the secret key it made; a run leaves nothing of it behind.
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
