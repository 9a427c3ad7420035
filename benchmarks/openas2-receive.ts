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
 * operations (pier's counts its PostgreSQL backends too).
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
import { measureCase, type CaseWatch, type Measured } from './lib/as2-case.js';
import { closedLoop, newLoadState, type LoadTarget } from './lib/as2-load.js';
import { benchKeyPair, buildAs2Requests, requestProfiles, type BuiltRequest } from './lib/as2-requests.js';
import { opensslRsaSignsPerSecond, rssOf } from './lib/cpu.js';
import { benchDatabase } from './lib/database.js';
import { dbCounterReader } from './lib/pg-counters.js';
import { findOpenAs2, startOpenAs2 } from './lib/openas2.js';
import { setUpPierReceiver } from './lib/pier-receiver.js';
import { startServerProcess } from './lib/server-process.js';
import { benchWorkDir } from './lib/work-dir.js';

const { values } = parseArgs({
  options: {
    openas2: { type: 'string' },
    cases: { type: 'string' },
    rounds: { type: 'string' },
    scale: { type: 'string' },
    'warm-up': { type: 'string' },
  },
});
const log = (text: string) => process.stderr.write(`${text}\n`);

const allCases = {
  c1: { concurrency: 1, messages: 1000, large: false },
  c4: { concurrency: 4, messages: 2000, large: false },
  c16: { concurrency: 16, messages: 2000, large: false },
  c64: { concurrency: 64, messages: 2000, large: false },
  sustained: { concurrency: 16, messages: 8000, large: false },
  large: { concurrency: 4, messages: 200, large: true },
} as const;
type CaseName = keyof typeof allCases;
const caseNames = (values.cases ?? Object.keys(allCases).join(',')).split(',') as CaseName[];
for (const name of caseNames)
  if (!(name in allCases)) throw new Error(`--cases takes ${Object.keys(allCases).join(', ')}`);
const rounds = Number(values.rounds ?? 2);
const scale = Number(values.scale ?? 1);
const warmUp = Number(values['warm-up'] ?? 4000);

const home = findOpenAs2(values.openas2 ?? process.env.OPENAS2_HOME);
if ('missing' in home) {
  log(`openas2-receive skipped: ${home.missing}`);
  console.log(JSON.stringify({ benchmark: 'openas2-receive', skipped: home.missing }));
  process.exit(0);
}

const work = benchWorkDir('pier-bench-openas2-receive-');
const keys = benchKeyPair(work.path);
const profile = requestProfiles.full;
const small = buildAs2Requests(500, 10240, profile, keys, 'text');
const large = caseNames.includes('large') ? buildAs2Requests(20, 1024 * 1024, profile, keys, 'text') : [];

interface Side {
  name: 'pier' | 'openas2';
  pid: number;
  url: string;
  watch: CaseWatch;
}

const db = await benchDatabase();
const token = await prepareWithToken(db.url);
const pier = await startServerProcess(db.url);
const counters = await dbCounterReader(db.url);
const pierPort = 20000 + Math.floor(Math.random() * 10000);
const oPort = pierPort + 10000;
const stallMs = 120_000;
let openas2: Awaited<ReturnType<typeof startOpenAs2>> | undefined;
const results: Record<string, unknown>[] = [];
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
  const sides: Side[] = [
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

  let sent = 0;
  const run = (side: Side, requests: readonly BuiltRequest[], concurrency: number, messages: number) => {
    const target: LoadTarget = {
      url: side.url,
      certificate: keys.certificate,
      requests,
      messageId: () => `<cmp-${process.pid}-${++sent}@alice.example>`,
    };
    const state = newLoadState();
    return measureCase(side.watch, state, () =>
      closedLoop(target, state, concurrency, 'keepalive', messages),
    );
  };

  // The large case's messages warm up too (a twentieth as many, at its concurrency): its path (a
  // MiB inflated, written direct) is code the small ones never run, and without them the first
  // large round measured both servers' warm-up (pier 8.45 ms a message against 4.9-5.3 in the
  // rounds after it, OpenAS2 13.85 against 10.6-12.05: benchmarks/history/2026-11-28-the-large-case-warmed-up.md).
  const warmUps = [
    { kind: '10 KiB', requests: small, concurrency: 16, messages: warmUp },
    ...(large.length > 0 && warmUp > 0
      ? [
          {
            kind: '1 MiB',
            requests: large,
            concurrency: allCases.large.concurrency,
            messages: Math.max(50, Math.round(warmUp / 20)),
          },
        ]
      : []),
  ];
  for (const side of sides) {
    for (const { kind, requests, concurrency, messages } of warmUps) {
      if (messages === 0) continue;
      log(`warming up ${side.name} with ${messages} messages of ${kind}…`);
      const m = await run(side, requests, concurrency, messages);
      if (m.state.ok < messages)
        throw new Error(`${side.name} warm-up: ${JSON.stringify(Object.fromEntries(m.state.problems))}`);
    }
  }

  let rsa = opensslRsaSignsPerSecond();
  for (const [i, name] of caseNames.entries()) {
    const spec = allCases[name];
    const messages = Math.max(spec.concurrency, Math.round(spec.messages * scale));
    for (let round = 0; round < rounds; round++) {
      const order = (i + round) % 2 === 0 ? sides : [...sides].reverse();
      const pair: Record<string, unknown> = { case: name, round: round + 1, ...spec, messages };
      for (const side of order) {
        const rssBefore = rssOf(side.pid);
        const m = await run(side, spec.large ? large : small, spec.concurrency, messages);
        const rsaNow = opensslRsaSignsPerSecond();
        pair[side.name] = figures(m, (rsa + rsaNow) / 2, rssBefore, rssOf(side.pid));
        rsa = rsaNow;
      }
      pair.pier_over_openas2 = ratio(pair);
      pair.first = order[0]!.name;
      log(JSON.stringify(pair));
      results.push(pair);
    }
  }
} finally {
  await openas2?.stop();
  await counters.end();
  await pier.stop();
  await db.drop();
  work.finish();
}

/** One side's figures: end to end, CPU per delivered message, memory. */
function figures(m: Measured, rsaSignsPerS: number, rssBefore: number, rssAfter: number) {
  const ok = Math.max(m.state.ok, 1);
  const round = (n: number, digits = 2) => Number(n.toFixed(digits));
  const cpuMs = m.server_cpu_ms + m.postgres_cpu_ms;
  const seconds = m.delivery!.seconds;
  return {
    processed: m.state.ok,
    errors: m.state.sent - m.state.ok,
    ...(m.state.problems.size > 0 ? { problems: Object.fromEntries(m.state.problems) } : {}),
    delivered_msg_per_s: round(m.state.ok / seconds, 1),
    unwritten_at_last_receipt: m.delivery!.unwritten_at_last_receipt,
    cpu_ms_per_msg: { server: round(m.server_cpu_ms / ok), postgres: round(m.postgres_cpu_ms / ok) },
    rsa_ops_per_msg: round((cpuMs * rsaSignsPerS) / 1000 / ok),
    openssl_rsa2048_sign_per_s: Math.round(rsaSignsPerS),
    machine_busy_pct: m.machine_busy_pct,
    rss_mib: { before: Math.round(rssBefore / 1048576), after: Math.round(rssAfter / 1048576) },
  };
}

function ratio(pair: Record<string, unknown>) {
  const p = pair.pier as ReturnType<typeof figures>;
  const o = pair.openas2 as ReturnType<typeof figures>;
  return {
    delivered_msg_per_s: Number((p.delivered_msg_per_s / o.delivered_msg_per_s).toFixed(2)),
    rsa_ops_per_msg: Number((p.rsa_ops_per_msg / o.rsa_ops_per_msg).toFixed(2)),
  };
}

console.log(JSON.stringify({ benchmark: 'openas2-receive', rounds, scale, warm_up: warmUp, cases: results }));
