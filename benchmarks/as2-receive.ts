/**
 * The AS2 receiver under load from outside: this process is the load generator, a `pier serve`
 * in its own process receives. N AS2 requests are built before any timing (pier's packer, one
 * document per message: 10 KiB EDI text, compressed, SHA-256 signed, AES-256-CBC for RSA-2048,
 * synchronous signed receipt asked for), then fired at an `as2-receiver` whose route writes each
 * document to a directory (file-writer), at concurrency 1, 4, 16 and 64, over kept-alive
 * connections and over one connection per message. A message counts only when its synchronous
 * receipt says `processed` with the MIC the packer computed; every 20th receipt's signature is
 * verified too. Per case: msg/s, p50/p99 latency, server and PostgreSQL CPU per message, commits
 * per message (pg_stat_database), statements per message when the cluster has
 * pg_stat_statements loaded, scans of `delivery` and `message`, how busy the machine was; and
 * `openssl speed rsa2048` before and after all cases.
 * Options: --messages <n> per case (default 1000), --concurrency <list> (default 1,4,16,64),
 * --connections keepalive,per-message (default both), --size <bytes> (default 10240),
 * --profile full|signed|encrypted|plain (default full), --preload <n> messages stored before
 * the server starts, without ANALYZE (default 0), --server-cpus <list> (taskset the server, e.g.
 * 0 or 0,1), --no-writer (no route: the message is only accepted), --warm-up <n> messages
 * posted at concurrency 16 before the first case (default 4000; see README, "Warm-up").
 */
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { parseMdn } from '../actors/as2/index.js';
import { prepareWithToken } from './lib/api-token.js';
import {
  as2RequestHeaders,
  benchKeyPair,
  buildAs2Requests,
  requestProfileOf,
  type BuiltRequest,
} from './lib/as2-requests.js';
import { benchApi } from './lib/bench-api.js';
import { cpuMsOf, machineTicks, opensslRsaSignsPerSecond, watchPostgresCpu } from './lib/cpu.js';
import { benchDatabase } from './lib/database.js';
import { preloadMessages } from './lib/preload.js';
import { startServerProcess } from './lib/server-process.js';
import { benchWorkDir } from './lib/work-dir.js';

const { values } = parseArgs({
  options: {
    messages: { type: 'string' },
    concurrency: { type: 'string' },
    connections: { type: 'string' },
    size: { type: 'string' },
    profile: { type: 'string' },
    preload: { type: 'string' },
    'server-cpus': { type: 'string' },
    'no-writer': { type: 'boolean' },
    'warm-up': { type: 'string' },
  },
});
const perCase = Number(values.messages ?? 1000);
const concurrencies = (values.concurrency ?? '1,4,16,64').split(',').map(Number);
const connectionModes = (values.connections ?? 'keepalive,per-message').split(',');
if (connectionModes.some((m) => m !== 'keepalive' && m !== 'per-message'))
  throw new Error('--connections is keepalive, per-message or both');
const size = Number(values.size ?? 10240);
const profileName = values.profile ?? 'full';
const profile = requestProfileOf(profileName);
const preload = Number(values.preload ?? 0);
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
log(`building ${perCase} ${profileName} messages of ${size} bytes…`);
const prebuilt = buildAs2Requests(perCase, size, profile, keys);
const baseHeaders = as2RequestHeaders;

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
const stats = new pg.Client({ connectionString: db.url });
await stats.connect();
const hasStatements =
  (await stats.query(`select 1 from pg_extension where extname = 'pg_stat_statements'`)).rowCount! > 0 ||
  (await stats
    .query('create extension if not exists pg_stat_statements')
    .then(() => stats.query('select 1 from pg_stat_statements limit 1'))
    .then(
      () => true,
      () => false,
    ));

interface DbCounters {
  commits: number;
  statements: number | null;
  deliverySeqScans: number;
  messageSeqScans: number;
  seqRowsRead: number;
}
async function dbCounters(): Promise<DbCounters> {
  await stats.query('select pg_stat_clear_snapshot()');
  const [d] = (
    await stats.query<{ commits: string }>(
      'select xact_commit as commits from pg_stat_database where datname = current_database()',
    )
  ).rows;
  const tables = (
    await stats.query<{ relname: string; seq_scan: string; seq_tup_read: string }>(
      'select relname, seq_scan, seq_tup_read from pg_stat_user_tables',
    )
  ).rows;
  const scans = (name: string) => Number(tables.find((t) => t.relname === name)?.seq_scan ?? 0);
  let statements: number | null = null;
  if (hasStatements) {
    const [s] = (
      await stats.query<{ calls: string }>(
        `select coalesce(sum(calls), 0) as calls from pg_stat_statements s
           join pg_database d on d.oid = s.dbid where d.datname = current_database()`,
      )
    ).rows;
    statements = Number(s!.calls);
  }
  return {
    // This connection's own statement and commits are taken off below.
    commits: Number(d!.commits),
    statements,
    deliverySeqScans: scans('delivery'),
    messageSeqScans: scans('message'),
    seqRowsRead: tables.reduce((a, t) => a + Number(t.seq_tup_read), 0),
  };
}

let sent = 0;
async function postOne(
  p: BuiltRequest,
  agent: http.Agent | false,
  verify: boolean,
): Promise<{ ok: boolean; ms: number; problem?: string }> {
  const messageId = `<bench-${process.pid}-${++sent}@alice.example>`;
  const t0 = performance.now();
  const answer = await new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>(
    (resolve, reject) => {
      const request = http.request(
        `http://127.0.0.1:${port}/as2`,
        {
          method: 'POST',
          agent,
          headers: {
            ...baseHeaders,
            ...p.headers,
            'Message-ID': messageId,
            'Content-Length': String(p.body.length),
            ...(agent === false ? { Connection: 'close' } : {}),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (c: Buffer) => chunks.push(c));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks),
            }),
          );
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(p.body);
    },
  ).catch((e: unknown) => ({ status: 0, headers: {}, body: Buffer.from(String(e)) }));
  const ms = performance.now() - t0;
  if (answer.status !== 200) return { ok: false, ms, problem: `HTTP ${answer.status}` };
  const text = answer.body.toString('latin1');
  const disposition = /^Disposition:[ \t]*([^\r\n]*)/im.exec(text)?.[1] ?? '';
  const mic = /^Received-Content-MIC:[ \t]*([^\r\n]*)/im.exec(text)?.[1]?.trim() ?? '';
  if (!/;\s*processed\s*$/.test(disposition)) return { ok: false, ms, problem: `disposition ${disposition}` };
  if (mic !== p.mic) return { ok: false, ms, problem: `MIC ${mic}, expected ${p.mic}` };
  if (verify) {
    const mdn = parseMdn(answer.body, answer.headers as Record<string, string>, {
      verificationCerts: [certificate],
      requireSigned: true,
    });
    if (!mdn.signature?.verified) return { ok: false, ms, problem: 'receipt signature does not verify' };
  }
  return { ok: true, ms };
}

const quantile = (sorted: number[], q: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const round = (n: number, digits = 1) => Number(n.toFixed(digits));

async function runCase(concurrency: number, mode: string, count: number) {
  const agent = mode === 'keepalive' ? new http.Agent({ keepAlive: true, maxSockets: concurrency }) : false;
  const latencies: number[] = [];
  const problems = new Map<string, number>();
  let next = 0;
  const before = await dbCounters();
  const serverCpu0 = cpuMsOf(server.pid);
  const pgCpu = watchPostgresCpu(db.name);
  const machine0 = machineTicks();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) {
        const r = await postOne(prebuilt[i % prebuilt.length]!, agent, i % 20 === 0);
        if (r.ok) latencies.push(r.ms);
        else problems.set(r.problem!, (problems.get(r.problem!) ?? 0) + 1);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const machine1 = machineTicks();
  const serverCpu = cpuMsOf(server.pid) - serverCpu0;
  const pgCpuMs = pgCpu.stop();
  // Backends report their counters to pg_stat_database at most once a second.
  await new Promise((r) => setTimeout(r, 1500));
  const after = await dbCounters();
  if (agent) agent.destroy();
  latencies.sort((a, b) => a - b);
  const ok = latencies.length;
  return {
    concurrency,
    connections: mode,
    messages: count,
    processed: ok,
    errors: count - ok,
    ...(problems.size > 0 ? { problems: Object.fromEntries(problems) } : {}),
    msg_per_s: round(ok / seconds),
    p50_ms: round(quantile(latencies, 0.5)),
    p99_ms: round(quantile(latencies, 0.99)),
    server_cpu_ms_per_msg: round(serverCpu / Math.max(ok, 1), 2),
    // How many cores' worth of CPU the server used on average: above 1, more than one thread worked.
    server_cores_used: round(serverCpu / 1000 / seconds, 2),
    postgres_cpu_ms_per_msg: round(pgCpuMs / Math.max(ok, 1), 2),
    machine_busy_pct: Math.round((100 * (machine1.busy - machine0.busy)) / (machine1.total - machine0.total)),
    // Less the statistics queries of this connection: one commit and four statements per read.
    commits_per_msg: round((after.commits - before.commits - 1) / Math.max(ok, 1), 2),
    statements_per_msg:
      after.statements === null || before.statements === null
        ? null
        : round((after.statements - before.statements - 4) / Math.max(ok, 1), 2),
    delivery_seq_scans: after.deliverySeqScans - before.deliverySeqScans,
    message_seq_scans: after.messageSeqScans - before.messageSeqScans,
    seq_rows_read: after.seqRowsRead - before.seqRowsRead,
  };
}

const port = 20000 + Math.floor(Math.random() * 20000);
const results: Record<string, unknown>[] = [];
try {
  const bench = benchApi(server.url, token);
  const api = bench.post;
  const cert = await bench.certificate(keys.certificatePath, keys.keyPath);
  await api('/plugins/configs?type=as2-receiver', {
    enabled: false,
    name: 'in',
    host: '127.0.0.1',
    port,
    path: '/as2',
  });
  const o = await api('/organizations', { name: 'bob' });
  await api('/as2/local-profiles', {
    local_organization_id: o.id,
    as2id: 'BOB',
    signing_certificate_id: cert,
  });
  const p = await api('/partners', { name: 'alice' });
  await api('/as2/remote-profiles', {
    business_partner_id: p.id,
    as2id: 'ALICE',
    signing_algorithm: profile.sign ? 'sha256' : 'none',
    encryption_algorithm: profile.encrypt ? 'aes256-cbc' : 'none',
    compression: profile.compress,
    mdn_mode: 'sync',
    mdn_signed: true,
    partner_certificate_id: cert,
    signature_certificate_ids: [cert],
    endpoint: 'http://127.0.0.1:9/as2',
  });
  if (!values['no-writer']) {
    await api('/plugins/configs?type=file-writer', {
      enabled: false,
      name: 'out',
      directory: path.join(workDir, 'out'),
      // Every request carries the same file name; a file of its own per message, as an
      // operator would set it up (and as OpenAS2 names received files by Message-ID), instead
      // of each delivery comparing its bytes with the one file already there.
      path_pattern: '{from}/{id}-{filename}',
      max_concurrent_deliveries: 100,
    });
    await api('/routes', { source_plugin: 'in', from: 'alice', to: 'bob', target_plugin: 'out' });
    await api('/services/file-writer/out/start', {});
  }
  await api('/services/as2-receiver/in/start', {});

  log(`warming up with ${warmUpMessages} messages…`);
  const warm = await runCase(16, 'keepalive', Math.max(warmUpMessages, 1));
  if (warm.errors > 0) throw new Error(`warm-up failed: ${JSON.stringify(warm.problems)}`);
  for (const concurrency of concurrencies)
    for (const mode of connectionModes) {
      const r = await runCase(concurrency, mode, perCase);
      log(JSON.stringify(r));
      results.push(r);
    }
} finally {
  await stats.end();
  await server.stop();
  await db.drop();
  work.finish();
}
const rsaAfter = opensslRsaSignsPerSecond();
log(`openssl speed rsa2048 after: ${rsaAfter} sign/s`);
console.log(
  JSON.stringify({
    benchmark: 'as2-receive',
    profile: profileName,
    size_bytes: size,
    preloaded_messages: preload,
    server_cpus: values['server-cpus'] ?? 'all',
    statements_counted: hasStatements,
    openssl_rsa2048_sign_per_s: { before: rsaBefore, after: rsaAfter },
    cases: results,
  }),
);
