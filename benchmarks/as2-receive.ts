/**
 * The AS2 receiver under load from outside, as the operator sees it: this process is the load
 * generator (an independent AS2 client), a `pier serve` in its own process receives. N AS2
 * requests are built before any timing (pier's packer, one document per message: 10 KiB EDI
 * text, compressed, SHA-256 signed, AES-256-CBC for RSA-2048, synchronous signed receipt asked
 * for), then fired at an `as2-receiver` whose route writes each document to a directory
 * (file-writer, its default settings unless told), at concurrency 1, 4, 16 and 64, over
 * kept-alive connections and over one connection per message. A receipt counts only when it says
 * `processed` with the MIC the packer computed; every 20th receipt's signature is verified too.
 * A message is delivered when its document is a file in the writer's directory (counted every
 * 100 ms), and a case ends only when every document is written: it fails, naming how many are
 * missing, when none has been written for `--drain-timeout` seconds.
 *
 * Per case: receipts/s, p50/p99 latency, documents unwritten when the last receipt was answered,
 * the time until the last was written, delivered msg/s end to end, the backlog (receipts
 * answered − documents written) once a second, server and PostgreSQL CPU per message up to the
 * last receipt and up to the last document written, the latter also in RSA-2048 private-key
 * operations (`openssl speed rsa2048` before and after each case), commits and statements per
 * message, scans of `delivery` and `message`, how busy the machine was; the message's
 * cryptography and compression alone timed in this process around each case (crypto-floor.ts)
 * and the server's CPU per message as a multiple of it; the server's RSS after each case.
 *
 * `--rate <msg/s>` runs the sustained mode instead: an open loop sending `rate` requests a second
 * on a fixed schedule for `--duration` seconds whatever the answers (at most `--cap` outstanding),
 * and reports receipts/s, delivered/s, the backlog over time and when the load stopped, whether
 * it stayed bounded, the drain time after the load stopped, and CPU per delivered message.
 *
 * Options: --messages <n> per case (default 1000), --concurrency <list> (default 1,4,16,64),
 * --connections keepalive,per-message (default both; the sustained mode uses the first, default
 * keepalive), --size <bytes> (default 10240), --profile full|signed|encrypted|plain (default
 * full), --document text|edifact (default text: EDI text after a counter, which the receiver's
 * envelope reader only tells apart; edifact: a real interchange, whose envelope it reads), --preload <n> messages stored before the server starts, without ANALYZE (default 0),
 * --server-cpus <list> (taskset the server, e.g. 0 or 0,1), --no-writer (no route: the message
 * is only accepted, no delivered figures), --max-concurrent-deliveries <n> (the writer's
 * setting; default its own default, 1), --listener-threads <n> (the receiver's setting; default
 * its own, one per 4 cores), --writer-threads <n> (the writer's `threads`; default its own, one
 * per 4 cores), each case also prints every server thread's
 * share of the server's CPU (thread-cpu.ts), --drain-timeout <s> (default 120), --warm-up <n>
 * messages posted at concurrency 16 before the first case (default 4000; 0 for a cold server; see
 * README, "Warm-up"),
 * --rate <msg/s>, --duration <s> (default 60), --cap <n> outstanding requests (default 2000).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { prepareWithToken } from './lib/api-token.js';
import { measureCase, type CaseWatch } from './lib/as2-case.js';
import { closedLoopFigures, sustainedFigures } from './lib/as2-figures.js';
import { closedLoop, newLoadState, openLoop, type LoadTarget } from './lib/as2-load.js';
import {
  benchDocument,
  benchKeyPair,
  buildAs2Requests,
  requestProfileOf,
  type BenchDocumentKind,
} from './lib/as2-requests.js';
import { seriesLine } from './lib/backlog.js';
import { opensslRsaSignsPerSecond, rssOf } from './lib/cpu.js';
import { measureCryptoFloor, type CryptoFloor } from './lib/crypto-floor.js';
import { benchDatabase } from './lib/database.js';
import { dbCounterReader } from './lib/pg-counters.js';
import { preloadMessages } from './lib/preload.js';
import { sharesLine } from './lib/thread-cpu.js';
import { setUpPierReceiver } from './lib/pier-receiver.js';
import { startServerProcess } from './lib/server-process.js';
import { benchWorkDir } from './lib/work-dir.js';

const { values } = parseArgs({
  options: {
    messages: { type: 'string' },
    concurrency: { type: 'string' },
    connections: { type: 'string' },
    size: { type: 'string' },
    profile: { type: 'string' },
    document: { type: 'string' },
    preload: { type: 'string' },
    'server-cpus': { type: 'string' },
    'no-writer': { type: 'boolean' },
    'max-concurrent-deliveries': { type: 'string' },
    'listener-threads': { type: 'string' },
    'writer-threads': { type: 'string' },
    'drain-timeout': { type: 'string' },
    'warm-up': { type: 'string' },
    rate: { type: 'string' },
    duration: { type: 'string' },
    cap: { type: 'string' },
  },
});
const perCase = Number(values.messages ?? 1000);
const concurrencies = (values.concurrency ?? '1,4,16,64').split(',').map(Number);
const rate = values.rate === undefined ? null : Number(values.rate);
const durationS = Number(values.duration ?? 60);
const cap = Number(values.cap ?? 2000);
const connectionModes = (values.connections ?? (rate === null ? 'keepalive,per-message' : 'keepalive')).split(
  ',',
);
if (connectionModes.some((m) => m !== 'keepalive' && m !== 'per-message'))
  throw new Error('--connections is keepalive, per-message or both');
if (rate !== null && !(rate > 0 && durationS > 0))
  throw new Error('--rate and --duration are positive numbers');
const size = Number(values.size ?? 10240);
const profileName = values.profile ?? 'full';
const documentKind = (values.document ?? 'text') as BenchDocumentKind;
if (documentKind !== 'text' && documentKind !== 'edifact') throw new Error('--document is text or edifact');
const profile = requestProfileOf(profileName);
const preload = Number(values.preload ?? 0);
const writer = !values['no-writer'];
const maxConcurrentDeliveries =
  values['max-concurrent-deliveries'] === undefined ? undefined : Number(values['max-concurrent-deliveries']);
const listenerThreads =
  values['listener-threads'] === undefined ? undefined : Number(values['listener-threads']);
const writerThreads = values['writer-threads'] === undefined ? undefined : Number(values['writer-threads']);
const stallMs = Number(values['drain-timeout'] ?? 120) * 1000;
// Every thread of the server (main, receiver, writer, each pool thread) compiles its own hot
// code: on a slow machine V8's compiler threads were still busy 25 s (≈ 3,500 messages) into a
// run, a tenth of the server's CPU. A receiver in service runs warm; the cases measure that.
const warmUpMessages = Number(values['warm-up'] ?? 4000);
const log = (text: string) => process.stderr.write(`${text}\n`);

const work = benchWorkDir('pier-bench-as2-receive-');
const workDir = work.path;
const keys = benchKeyPair(workDir);
const { certificate } = keys;

// ---- Requests, built before anything is timed. ----
log(`building ${perCase} ${profileName} messages of ${size} bytes (${documentKind})…`);
const prebuilt = buildAs2Requests(perCase, size, profile, keys, documentKind);

const rsaBefore = opensslRsaSignsPerSecond();
log(`openssl speed rsa2048: ${rsaBefore} sign/s`);

const db = await benchDatabase();
const token = await prepareWithToken(db.url);
if (preload > 0) {
  log(`storing ${preload} earlier messages…`);
  await preloadMessages(db.url, preload);
}
const server = await startServerProcess(db.url);
if (values['server-cpus'])
  execFileSync('taskset', ['-a', '-p', '-c', values['server-cpus'], String(server.pid)], { stdio: 'ignore' });
const counters = await dbCounterReader(db.url);
const writerDirectory = path.join(workDir, 'out');
const watch: CaseWatch = {
  serverPid: server.pid,
  databaseName: db.name,
  counters,
  writerDirectory: writer ? writerDirectory : null,
  stallMs,
};

const port = 20000 + Math.floor(Math.random() * 20000);
let sent = 0;
const target: LoadTarget = {
  url: `http://127.0.0.1:${port}/as2`,
  certificate,
  requests: prebuilt,
  messageId: () => `<bench-${process.pid}-${++sent}@alice.example>`,
};

/** One closed-loop case, measured until its last document is written. */
async function closedCase(concurrency: number, mode: string, count: number) {
  const state = newLoadState();
  return measureCase(watch, state, () => closedLoop(target, state, concurrency, mode, count));
}

/** `openssl speed` now, and the mean of it and the one before: the machine's speed over a case. */
let lastRsa = rsaBefore;
function rsaOverCase(): number {
  const now = opensslRsaSignsPerSecond();
  const mean = (lastRsa + now) / 2;
  lastRsa = now;
  return mean;
}

/** The message's cryptography and compression alone (crypto-floor.ts), timed around each case too. */
const floorInput = {
  document: benchDocument(0, size, documentKind),
  bodyBytes: prebuilt[0]!.body.length,
  ...profile,
  privateKey: keys.privateKey,
  certificate: keys.certificate,
};
let lastFloor = measureCryptoFloor(floorInput);
let rssAfterWarmUp = 0;
function cryptoOverCase(serverMsPerMsg: number, totalMsPerMsg: number) {
  const now = measureCryptoFloor(floorInput);
  const floor: CryptoFloor = {
    total_ms: Math.round(((lastFloor.total_ms + now.total_ms) / 2) * 1000) / 1000,
    steps_ms: now.steps_ms,
  };
  lastFloor = now;
  return {
    crypto_floor_ms_per_msg: floor.total_ms,
    crypto_floor_steps_ms: floor.steps_ms,
    server_cpu_over_crypto_floor: Math.round((serverMsPerMsg / floor.total_ms) * 100) / 100,
    total_cpu_over_crypto_floor: Math.round((totalMsPerMsg / floor.total_ms) * 100) / 100,
    server_rss_mib_after: Math.round(rssOf(server.pid) / 1048576),
  };
}

const results: Record<string, unknown>[] = [];
/** A case's figures with the crypto floor's share and its busiest server threads: logged and kept. */
function report(
  m: Pick<Awaited<ReturnType<typeof closedCase>>, 'threads' | 'samples'>,
  figures: { cpu_per_msg: { server_ms: number; total_ms: number } },
): void {
  const r = {
    ...figures,
    ...cryptoOverCase(figures.cpu_per_msg.server_ms, figures.cpu_per_msg.total_ms),
    server_threads: m.threads.slice(0, 10),
  };
  log(`backlog (in flight) per second: ${seriesLine(m.samples)}`);
  log(`server threads' shares of its CPU: ${sharesLine(m.threads)}`);
  log(JSON.stringify(r));
  results.push(r);
}
try {
  await setUpPierReceiver({
    serverUrl: server.url,
    token,
    keys,
    port,
    profile,
    writerDirectory: writer ? writerDirectory : null,
    ...(maxConcurrentDeliveries === undefined ? {} : { maxConcurrentDeliveries }),
    ...(listenerThreads === undefined ? {} : { listenerThreads }),
    ...(writerThreads === undefined ? {} : { writerThreads }),
  });

  // --warm-up 0 measures a cold server: its first messages, threads still compiling.
  if (warmUpMessages > 0) {
    log(`warming up with ${warmUpMessages} messages…`);
    const warm = await closedCase(16, 'keepalive', warmUpMessages);
    if (warm.state.ok < warm.state.sent)
      throw new Error(`warm-up failed: ${JSON.stringify(Object.fromEntries(warm.state.problems))}`);
    log(
      `warm-up: ${warm.state.ok} receipts in ${warm.receiptSeconds.toFixed(1)} s` +
        (warm.delivery ? `, last document written at ${warm.delivery.seconds.toFixed(1)} s` : ''),
    );
  }
  lastRsa = opensslRsaSignsPerSecond();
  lastFloor = measureCryptoFloor(floorInput);
  rssAfterWarmUp = Math.round(rssOf(server.pid) / 1048576);
  if (rate !== null) {
    const state = newLoadState();
    let open: Awaited<ReturnType<typeof openLoop>> | undefined;
    const m = await measureCase(watch, state, async (stopped) => {
      open = await openLoop(target, state, rate, durationS, connectionModes[0]!, cap, stopped);
    });
    const figures = sustainedFigures(m, open!, rsaOverCase(), {
      offered_msg_per_s: rate,
      duration_s: durationS,
      connections: connectionModes[0]!,
      cap,
    });
    report(m, figures);
  } else
    for (const concurrency of concurrencies)
      for (const mode of connectionModes) {
        const m = await closedCase(concurrency, mode, perCase);
        const figures = closedLoopFigures(m, rsaOverCase(), {
          concurrency,
          connections: mode,
          messages: perCase,
        });
        report(m, figures);
      }
} finally {
  await counters.end();
  await server.stop();
  await db.drop();
  work.finish();
}
log(`openssl speed rsa2048 after: ${lastRsa} sign/s`);
console.log(
  JSON.stringify({
    benchmark: 'as2-receive',
    profile: profileName,
    document: documentKind,
    size_bytes: size,
    preloaded_messages: preload,
    server_cpus: values['server-cpus'] ?? 'all',
    max_concurrent_deliveries: writer ? (maxConcurrentDeliveries ?? 'default') : null,
    listener_threads: listenerThreads ?? 'default',
    writer_threads: writer ? (writerThreads ?? 'default') : null,
    statements_counted: counters.hasStatements,
    openssl_rsa2048_sign_per_s: { before: rsaBefore, after: lastRsa },
    server_rss_mib_after_warm_up: rssAfterWarmUp,
    cases: results,
  }),
);
