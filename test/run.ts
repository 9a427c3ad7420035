/**
 * `npm test` after lint and typecheck: makes sure a PostgreSQL is there (DATABASE_URL, else
 * an embedded one under .test-pg), then runs every *.test.ts with tap and prints the totals.
 * Each test file creates and drops its own database on that server.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { startEmbeddedPostgres } from '../storage/embedded-postgres.js';

const root = path.resolve(import.meta.dirname, '..');
/** Tests live in test/ (those that cross folders) and beside the code they cover. */
const codeFolders = ['test', 'pki', 'storage', 'protocol', 'flow', 'actors', 'runtime', 'api', 'cli'];

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...testFiles(full));
    else if (entry.name.endsWith('.test.ts')) out.push(path.relative(root, full));
  }
  return out.sort();
}

const requested = process.argv.slice(2);
const files =
  requested.length > 0 ? requested : codeFolders.flatMap((folder) => testFiles(path.join(root, folder)));

/** PIER_TEST_PG_PORT, else a port nobody listens on, so two checkouts can test at once. */
async function embeddedPort(): Promise<number> {
  if (process.env.PIER_TEST_PG_PORT) return Number(process.env.PIER_TEST_PG_PORT);
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

let adminUrl = process.env.DATABASE_URL;
let stopEmbedded: (() => Promise<void>) | undefined;
if (!adminUrl) {
  const embedded = await startEmbeddedPostgres(path.join(root, '.test-pg'), {
    port: await embeddedPort(),
    database: 'postgres',
  });
  adminUrl = embedded.url;
  stopEmbedded = embedded.stop;
}

const tapRun = path.join(root, 'node_modules/tap/dist/esm/run.mjs');

/**
 * tap rebuilds itself for the plugins package.json names (without @tapjs/typescript, tsx instead)
 * only on its first run, and that run still starts every test file with the old plugin set: the
 * TypeScript plugin compiles each file with ts-node, about 4 s per file (more than half of the
 * suite's time). `npm ci` brings the default build back, so build first when it is stale.
 */
function tapBuildIsStale(): boolean {
  const built = readFileSync(
    path.join(root, 'node_modules/@tapjs/test/test-built/dist/esm/index.js'),
    'utf8',
  );
  return /^@tapjs\/typescript$/m.test(built.slice(built.indexOf('export const signature')));
}
if (tapBuildIsStale()) spawnSync(process.execPath, [tapRun, 'build'], { cwd: root, stdio: 'ignore' });

/**
 * Files run this many at a time (PIER_TEST_JOBS to change): most of a test file's time is spent
 * waiting on PostgreSQL, child processes, browsers and retry timers, so three run well even on
 * two cores (a quiet 2-core run: tap 549 s with two, 476 s with three, every test passing).
 */
const jobs = Number(process.env.PIER_TEST_JOBS) || Math.max(3, availableParallelism());

const tap = spawn(
  process.execPath,
  [
    tapRun,
    '--jobs',
    String(jobs),
    '--reporter',
    path.join(root, 'test/counts-reporter.mjs'),
    '--timeout',
    '300',
    ...files,
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, PIER_TEST_ADMIN_URL: adminUrl } },
);
const code = await new Promise<number>((resolve) => tap.on('exit', (c) => resolve(c ?? 1)));
await stopEmbedded?.();
process.exit(code);
