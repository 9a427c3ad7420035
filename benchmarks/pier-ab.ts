/**
 * pier against pier: this checkout's build (A) and another checkout's (B) side by side as AS2
 * receivers on one machine, to tell a change of a few per cent on machines whose speed drifts by
 * more than that between runs minutes apart. Each side is a `pier serve` of its own build with a
 * database of its own, migrated and given an API token by that build's own CLI, set up alike
 * (lib/pier-receiver.ts: a receiver, a route, a file-writer) and fired at with the same pre-built
 * requests; the cases run in interleaved pairs, the order alternating (lib/side-by-side.ts, as
 * openas2-receive.ts runs pier and OpenAS2). Per pair: each side's delivered msg/s and CPU per
 * delivered message (server and PostgreSQL, in ms and in RSA-2048 operations), and A over B; at
 * the end, each case's ratios over its rounds.
 *
 * B is a pier checkout with its dependencies installed, for example the commit before a change:
 * `git worktree add /tmp/pier-before HEAD~1 && (cd /tmp/pier-before && npm ci)`. Its dist/ is built
 * here when older than its sources, as this checkout's is.
 *
 * Options: --b DIR (required), --cases <list> (c1, c4, c16, c64, sustained, large; default
 * c1,c4,c16), --rounds <n> pairs per case (default 3), --scale <x> multiplies every case's message
 * count (default 1), --warm-up <n> messages per side at concurrency 16 (default 4000).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from '../cli/bench/free-port.js';
import { benchKeyPair } from './lib/as2-requests.js';
import { benchDatabase } from './lib/database.js';
import { dbCounterReader } from './lib/pg-counters.js';
import { pierEntry } from './lib/pier-entry.js';
import { setUpPierReceiver } from './lib/pier-receiver.js';
import { startServerProcess } from './lib/server-process.js';
import {
  runSideBySide,
  sideBySideArgs,
  sideBySideRequests,
  sideBySideSettings,
  type Side,
} from './lib/side-by-side.js';
import { benchWorkDir } from './lib/work-dir.js';

const { values } = parseArgs({ options: { b: { type: 'string' }, ...sideBySideArgs } });
const log = (text: string) => process.stderr.write(`${text}\n`);

if (!values.b) {
  log('usage: npm run bench -- pier-ab --b <another pier checkout> [--cases c1,c4,c16] [--rounds 3]');
  process.exit(2);
}
const checkouts = [
  { name: 'a', root: path.resolve(import.meta.dirname, '..') },
  { name: 'b', root: path.resolve(values.b) },
] as const;
for (const { root } of checkouts)
  if (!existsSync(path.join(root, 'bin/pier.js')) || !existsSync(path.join(root, 'node_modules')))
    throw new Error(`${root} is not a pier checkout with its dependencies installed (npm ci there)`);
const settings = sideBySideSettings(values, { cases: ['c1', 'c4', 'c16'], rounds: 3 });

const work = benchWorkDir('pier-bench-pier-ab-');
const keys = benchKeyPair(work.path);
const { profile, ...requests } = sideBySideRequests(settings.caseNames, keys);

/** The commit a checkout is at, `+changes` when its tree differs from it. */
function commitOf(root: string): string {
  const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' }).trim();
  return git('rev-parse', '--short=8', 'HEAD') + (git('status', '--porcelain') ? '+changes' : '');
}

/**
 * An API token made by the checkout's own CLI on its database (which the CLI migrates first to
 * that build's migrations, not this one's): the commands an operator would run.
 */
function tokenBy(entry: string, databaseUrl: string): string {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pier-bench-ab-cli-'));
  const pier = (...args: string[]) =>
    execFileSync(process.execPath, [entry, ...args], {
      cwd: dataDir,
      env: { ...process.env, DATABASE_URL: databaseUrl, PIER_DATA_DIR: dataDir },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
  try {
    pier('migrate');
    pier('service-accounts', 'create', 'bench');
    return pier(
      'api-tokens',
      'create',
      '--service-account',
      'bench',
      '--label',
      'bench',
      '--expires-in-days',
      '1',
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** One checkout's pier, running and set up, and how to take it down again. */
async function startSide(checkout: (typeof checkouts)[number]) {
  const entry = pierEntry('dist', checkout.root);
  const db = await benchDatabase();
  const stops: (() => Promise<void>)[] = [() => db.drop()];
  const stop = async () => {
    for (const s of stops.reverse()) await s();
  };
  try {
    const token = tokenBy(entry, db.url);
    const server = await startServerProcess(db.url, {}, [], entry);
    stops.push(() => server.stop());
    const counters = await dbCounterReader(db.url);
    stops.push(() => counters.end());
    const port = await freePort();
    const writerDirectory = path.join(work.path, `${checkout.name}-out`);
    await setUpPierReceiver({ serverUrl: server.url, token, keys, port, profile, writerDirectory });
    const side: Side = {
      name: checkout.name,
      pid: server.pid,
      url: `http://127.0.0.1:${port}/as2`,
      watch: { serverPid: server.pid, databaseName: db.name, counters, writerDirectory, stallMs: 120_000 },
    };
    return { side, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

const described = (c: (typeof checkouts)[number]) => ({ checkout: c.root, commit: commitOf(c.root) });
const a = described(checkouts[0]);
const b = described(checkouts[1]);
log(`A: ${a.checkout} at ${a.commit}; B: ${b.checkout} at ${b.commit}`);
const started: Awaited<ReturnType<typeof startSide>>[] = [];
let results: Record<string, unknown>[] = [];
try {
  for (const checkout of checkouts) started.push(await startSide(checkout));
  const sides = [started[0]!.side, started[1]!.side] as const;
  results = await runSideBySide({ sides, ...settings, ...requests, certificate: keys.certificate, log });
} finally {
  for (const s of started) await s.stop();
  work.finish();
}

/** Each case's A-over-B ratios, round by round: what tells a change from the host's drift. */
const summary = settings.caseNames.map((name) => {
  const pairs = results.filter((r) => r.case === name);
  const ratios = pairs.map((r) => r.a_over_b as { delivered_msg_per_s: number; rsa_ops_per_msg: number });
  return {
    case: name,
    delivered_msg_per_s: ratios.map((r) => r.delivered_msg_per_s),
    rsa_ops_per_msg: ratios.map((r) => r.rsa_ops_per_msg),
  };
});
for (const s of summary)
  log(
    `${s.case}: A/B delivered msg/s ${s.delivered_msg_per_s.join(', ')}; CPU per message ${s.rsa_ops_per_msg.join(', ')}`,
  );

console.log(
  JSON.stringify({
    benchmark: 'pier-ab',
    a,
    b,
    rounds: settings.rounds,
    scale: settings.scale,
    warm_up: settings.warmUp,
    cases: results,
    summary,
  }),
);
