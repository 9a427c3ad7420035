/**
 * `npm test` after lint and typecheck: makes sure a PostgreSQL is there (DATABASE_URL, else
 * an embedded one under .test-pg), then runs every *.test.ts with tap and prints the totals.
 * Each test file creates and drops its own database on that server.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { startEmbeddedPostgres } from '../storage/embedded-postgres.js';

const root = path.resolve(import.meta.dirname, '..');
/** Tests live in test/ (those that cross folders) and beside the code they cover. */
const codeFolders = ['test', 'pki', 'storage', 'protocol', 'actors', 'runtime', 'api', 'cli'];

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

const tap = spawn(
  process.execPath,
  [
    path.join(root, 'node_modules/tap/dist/esm/run.mjs'),
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
