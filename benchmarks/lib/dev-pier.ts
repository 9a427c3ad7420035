/** `pier serve --dev` (no token needed) in a process of its own, for the benchmarks that set up their flow by API. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pierEntry } from './pier-entry.js';

export interface DevPier {
  url: string;
  child: ChildProcess;
  /** POST under /api/v1 that must succeed; answers its data. */
  post(route: string, body: unknown): Promise<unknown>;
  stop(): Promise<void>;
}

/** Working directory `dir`, its data in `dir`/data; `extraEnv` added to its environment. */
export async function startDevPier(
  databaseUrl: string,
  dir: string,
  extraEnv: Record<string, string> = {},
): Promise<DevPier> {
  // For profiling the server: BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, pierEntry(), 'serve', '--dev'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: databaseUrl,
      PIER_DATA_DIR: path.join(dir, 'data'),
      PIER_SECRET_KEY: 'bench',
      HTTP_PORT: '0',
      HTTP_HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ...extraEnv,
      ...(process.env.UV_THREADPOOL_SIZE ? { UV_THREADPOOL_SIZE: process.env.UV_THREADPOOL_SIZE } : {}),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (process.env.BENCH_LOG) process.stderr.write(`${line}\n`);
      if (line.includes('"pier is serving"')) resolve((JSON.parse(line) as { url: string }).url);
      else if (line.includes('"level":50')) process.stderr.write(`${line}\n`);
    });
    child.once('exit', (code) => reject(new Error(`pier serve exited with ${code}`)));
  });
  return {
    url,
    child,
    async post(route, body) {
      const r = await fetch(`${url}/api/v1${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const answer = (await r.json()) as { data: unknown };
      if (r.status >= 300) throw new Error(`${route}: ${JSON.stringify(answer)}`);
      return answer.data;
    },
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
