/**
 * pier and OpenAS2 side by side as receivers, on one machine: the same pre-built AS2 requests
 * (as2-requests.ts: 10 KiB EDI text, compressed, SHA-256 signed, AES-256-CBC, signed synchronous
 * receipt) from this process, an independent client, to a `pier serve` (AS2 receiver routed to a
 * file-writer, default settings, a fresh database) and to OpenAS2 (built from its sources, see
 * lib/openas2.ts; its database tracking off, so it keeps nothing but files). A message counts
 * when its receipt says `processed` with the right MIC and its document is a file on disk; a
 * case ends when every such document is written. Both servers run for the whole run, each warmed
 * up first; cases run in interleaved pairs, the order alternating (A B, B A, …), with
 * `openssl speed rsa2048` around each case so CPU is also given in RSA-2048 private-key
 * operations (pier's counts its PostgreSQL backends too): lib/side-by-side.ts, which pier-ab.ts
 * shares.
 *
 * Cases (the grid): c1 (1,000 at concurrency 1), c4 (2,000 at 4), c16 (2,000 at 16),
 * c64 (2,000 at 64), sustained (8,000 at 16, memory before and after), large (200 × 1 MiB at 4).
 *
 * Options: --openas2 DIR (else OPENAS2_HOME; without one the run says why and exits 0),
 * --cases <list> (default all), --rounds <n> pairs per case (default 2), --scale <x> multiplies
 * every case's message count (default 1; 0.1 for a quick try), --warm-up <n> messages per server
 * at concurrency 16 (default 4000), then, when the large case runs, a twentieth as many large ones
 * (at least 50) at its concurrency.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { prepareWithToken } from './lib/api-token.js';
import { benchKeyPair } from './lib/as2-requests.js';
import { benchDatabase } from './lib/database.js';
import { dbCounterReader } from './lib/pg-counters.js';
import { findOpenAs2, startOpenAs2 } from './lib/openas2.js';
import { setUpPierReceiver } from './lib/pier-receiver.js';
import {
  runSideBySide,
  sideBySideArgs,
  sideBySideCases,
  sideBySideRequests,
  sideBySideSettings,
  type CaseName,
  type Side,
} from './lib/side-by-side.js';
import { startServerProcess } from './lib/server-process.js';
import { benchWorkDir } from './lib/work-dir.js';

const { values } = parseArgs({ options: { openas2: { type: 'string' }, ...sideBySideArgs } });
const log = (text: string) => process.stderr.write(`${text}\n`);

const settings = sideBySideSettings(values, {
  cases: Object.keys(sideBySideCases) as CaseName[],
  rounds: 2,
});

const home = findOpenAs2(values.openas2 ?? process.env.OPENAS2_HOME);
if ('missing' in home) {
  log(`openas2-receive skipped: ${home.missing}`);
  console.log(JSON.stringify({ benchmark: 'openas2-receive', skipped: home.missing }));
  process.exit(0);
}

const work = benchWorkDir('pier-bench-openas2-receive-');
const keys = benchKeyPair(work.path);
const { profile, ...requests } = sideBySideRequests(settings.caseNames, keys);

const db = await benchDatabase();
const token = await prepareWithToken(db.url);
const pier = await startServerProcess(db.url);
const counters = await dbCounterReader(db.url);
const pierPort = 20000 + Math.floor(Math.random() * 10000);
const oPort = pierPort + 10000;
const stallMs = 120_000;
let openas2: Awaited<ReturnType<typeof startOpenAs2>> | undefined;
let results: Record<string, unknown>[] = [];
try {
  await setUpPierReceiver({
    serverUrl: pier.url,
    token,
    keys,
    port: pierPort,
    profile,
    writerDirectory: path.join(work.path, 'pier-out'),
  });
  openas2 = await startOpenAs2(home, {
    workDir: work.path,
    certificatePath: keys.certificatePath,
    keyPath: keys.keyPath,
    parties: ['ALICE', 'BOB'],
    partnerships: [{ sender: 'ALICE', receiver: 'BOB' }],
    port: oPort,
    mdnPort: oPort + 1,
  });
  const sides: [Side, Side] = [
    {
      name: 'pier',
      pid: pier.pid,
      url: `http://127.0.0.1:${pierPort}/as2`,
      watch: {
        serverPid: pier.pid,
        databaseName: db.name,
        counters,
        writerDirectory: path.join(work.path, 'pier-out'),
        stallMs,
      },
    },
    {
      name: 'openas2',
      pid: openas2.pid,
      url: `http://127.0.0.1:${oPort}/as2`,
      watch: {
        serverPid: openas2.pid,
        databaseName: null,
        counters: null,
        writerDirectory: openas2.inbox('ALICE', 'BOB'),
        stallMs,
      },
    },
  ];
  results = await runSideBySide({ sides, ...settings, ...requests, certificate: keys.certificate, log });
} finally {
  await openas2?.stop();
  await counters.end();
  await pier.stop();
  await db.drop();
  work.finish();
}

const { rounds, scale, warmUp } = settings;
console.log(JSON.stringify({ benchmark: 'openas2-receive', rounds, scale, warm_up: warmUp, cases: results }));
