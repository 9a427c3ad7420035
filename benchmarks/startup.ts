/**
 * How long pier takes to start, the compiled build (dist/) against the TypeScript sources run
 * through tsx, interleaved (sources, dist, sources, dist, …) so a busy moment of a shared machine
 * falls on both. Per round and build: `pier serve` until `GET /health` answers healthy (wall
 * time, and the server's CPU up to then), `pier --help` and `pier users list` (wall and CPU
 * time of the whole process, DATABASE_URL given). The database is migrated once before the rounds.
 * The first 1,000 AS2 messages of a cold server are measured by as2-receive
 * (`--warm-up 0 --messages 1000 --concurrency 16 --connections keepalive`) with
 * PIER_BENCH_BUILD=sources or dist; see benchmarks/README.md.
 *
 * Options: --rounds <n> (default 5).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { prepareWithToken } from './lib/api-token.js';
import { cpuMsOf } from './lib/cpu.js';
import { benchDatabase } from './lib/database.js';
import { pierEntry, type PierBuild } from './lib/pier-entry.js';

const { values } = parseArgs({ options: { rounds: { type: 'string' } } });
const rounds = Number(values.rounds ?? 5);
const log = (text: string) => process.stderr.write(`${text}\n`);
const builds: PierBuild[] = ['sources', 'dist'];
const entries = Object.fromEntries(builds.map((b) => [b, pierEntry(b)])) as Record<PierBuild, string>;

const db = await benchDatabase();
await prepareWithToken(db.url);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pier-bench-startup-'));
const env = {
  ...process.env,
  DATABASE_URL: db.url,
  PIER_DATA_DIR: dataDir,
  PIER_SECRET_KEY: 'bench',
  LOG_LEVEL: 'warn',
};

/**
 * Wall and CPU (user + system) milliseconds of one `pier ARGS` process, which must exit 0. CPU
 * comes from GNU time (`/usr/bin/time`), and tells more than the wall time on a shared machine.
 */
function timeCommand(build: PierBuild, args: string[]): { wall_ms: number; cpu_ms: number } {
  const started = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', 'cpu %U %S', process.execPath, entries[build], ...args], {
    env,
    cwd: dataDir,
    stdio: 'pipe',
  });
  const wall = performance.now() - started;
  if (r.status !== 0) throw new Error(`pier ${args.join(' ')} (${build}) exited ${r.status}: ${r.stderr}`);
  const [, user, system] = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(r.stderr.toString()) ?? [];
  return { wall_ms: Math.round(wall), cpu_ms: Math.round((Number(user) + Number(system)) * 1000) };
}

/** `pier serve` until /health says healthy: wall and server CPU milliseconds; then stopped. */
async function timeHealthy(build: PierBuild): Promise<{ wall_ms: number; cpu_ms: number }> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const started = performance.now();
  const child = spawn(process.execPath, [entries[build], 'serve'], {
    env: { ...env, HTTP_PORT: String(port), HTTP_HOST: '127.0.0.1' },
    cwd: dataDir,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`pier serve (${build}) exited ${child.exitCode}`);
      if (performance.now() - started > 120_000)
        throw new Error(`pier serve (${build}) not healthy in 120 s`);
      try {
        const r = await fetch(`http://127.0.0.1:${port}/health`);
        if (r.ok && ((await r.json()) as { status?: string }).status === 'healthy') break;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    return { wall_ms: performance.now() - started, cpu_ms: cpuMsOf(child.pid!) };
  } finally {
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }
}

type Sample = {
  health_ms: number;
  health_cpu_ms: number;
  help_ms: number;
  help_cpu_ms: number;
  users_list_ms: number;
  users_list_cpu_ms: number;
};
const samples: Record<PierBuild, Sample[]> = { sources: [], dist: [] };
try {
  for (let round = 1; round <= rounds; round++)
    for (const build of round % 2 ? builds : [...builds].reverse()) {
      const health = await timeHealthy(build);
      const help = timeCommand(build, ['--help']);
      const usersList = timeCommand(build, ['users', 'list']);
      const sample = {
        health_ms: Math.round(health.wall_ms),
        health_cpu_ms: health.cpu_ms,
        help_ms: help.wall_ms,
        help_cpu_ms: help.cpu_ms,
        users_list_ms: usersList.wall_ms,
        users_list_cpu_ms: usersList.cpu_ms,
      };
      log(`round ${round} ${build}: ${JSON.stringify(sample)}`);
      samples[build].push(sample);
    }
} finally {
  await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : Math.round((s[s.length / 2 - 1]! + s[s.length / 2]!) / 2);
};
const summary = (b: PierBuild) =>
  Object.fromEntries(
    (
      ['health_ms', 'health_cpu_ms', 'help_ms', 'help_cpu_ms', 'users_list_ms', 'users_list_cpu_ms'] as const
    ).map((k) => [
      k,
      { median: median(samples[b].map((s) => s[k])), min: Math.min(...samples[b].map((s) => s[k])) },
    ]),
  );
console.log(
  JSON.stringify({
    benchmark: 'startup',
    rounds,
    sources: summary('sources'),
    dist: summary('dist'),
    samples,
  }),
);
