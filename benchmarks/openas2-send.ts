/**
 * pier and OpenAS2 side by side as senders, on one machine: files dropped for a partner (a
 * backlog of N at once, each renamed into the watched directory from one beside it, as a
 * well-behaved producer does) until every one has a signed receipt that the sender has verified.
 * pier sends with a file-poller routed to an as2-sender (a `pier serve` with a fresh database);
 * OpenAS2 (lib/openas2.ts) with its directory poller for the partnership. Both send the same
 * 10 KiB EDI text, compressed, SHA-256 signed, AES-256-CBC, asking for a signed synchronous
 * receipt, to the same receiver: a third process, a `pier serve` of its own database that
 * accepts and answers (no route), not counted in either sender's CPU. Both pollers look every
 * second. A file is done for pier when its message is Delivered (the receipt verified); for
 * OpenAS2 when it has stored the receipt, which it does only after checking its signature and
 * MIC. Cases run in interleaved pairs, the order alternating, `openssl speed rsa2048` around
 * each, so CPU (the sender's process, for pier with its PostgreSQL backends) is also given in
 * RSA-2048 private-key operations.
 *
 * Options: --openas2 DIR (else OPENAS2_HOME; without one the run says why and exits 0),
 * --files <n> per case (default 2000), --rounds <n> pairs (default 2), --warm-up <n> files per
 * sender first (default 1000), --parallel default|<n>: deliveries at once, `default` being each
 * product's own (pier's as2-sender 5, OpenAS2's poller one file at a time), a number setting
 * both (pier's max_concurrent_deliveries, OpenAS2's process_files_in_parallel with
 * max_parallel_files).
 */
import { mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { prepareWithToken } from './lib/api-token.js';
import { benchKeyPair, benchDocument, requestProfiles } from './lib/as2-requests.js';
import { benchApi } from './lib/bench-api.js';
import { cpuMsOf, opensslRsaSignsPerSecond, rssOf, watchPostgresCpu } from './lib/cpu.js';
import { benchDatabase } from './lib/database.js';
import { findOpenAs2, startOpenAs2 } from './lib/openas2.js';
import { setUpPierReceiver } from './lib/pier-receiver.js';
import { startServerProcess } from './lib/server-process.js';
import { benchWorkDir } from './lib/work-dir.js';
import { countFiles } from './lib/written-files.js';

const { values } = parseArgs({
  options: {
    openas2: { type: 'string' },
    files: { type: 'string' },
    rounds: { type: 'string' },
    'warm-up': { type: 'string' },
    parallel: { type: 'string' },
  },
});
const log = (text: string) => process.stderr.write(`${text}\n`);
const files = Number(values.files ?? 2000);
const rounds = Number(values.rounds ?? 2);
const warmUp = Number(values['warm-up'] ?? 1000);
const parallel = values.parallel ?? 'default';
if (parallel !== 'default' && !(Number(parallel) >= 1)) throw new Error('--parallel is default or a number');

const home = findOpenAs2(values.openas2 ?? process.env.OPENAS2_HOME);
if ('missing' in home) {
  log(`openas2-send skipped: ${home.missing}`);
  console.log(JSON.stringify({ benchmark: 'openas2-send', skipped: home.missing }));
  process.exit(0);
}

const work = benchWorkDir('pier-bench-openas2-send-');
const keys = benchKeyPair(work.path);
const document = benchDocument(0, 10240, 'text');
const stallMs = 120_000;

/** A sender under test: where its files go, how many it has finished, whose CPU counts. */
interface Sender {
  name: 'pier' | 'openas2';
  pid: number;
  databaseName: string | null;
  outbox: string;
  /** Files whose receipts it has verified, and files it gave up on. */
  progress(): Promise<{ done: number; failed: number }>;
}

const receiverDb = await benchDatabase();
const senderDb = await benchDatabase();
const receiver = await startServerProcess(receiverDb.url);
const pier = await startServerProcess(senderDb.url, {}, []);
const client = new pg.Client({ connectionString: senderDb.url });
let openas2: Awaited<ReturnType<typeof startOpenAs2>> | undefined;
const results: Record<string, unknown>[] = [];
try {
  const receiverPort = 20000 + Math.floor(Math.random() * 10000);
  await setUpPierReceiver({
    serverUrl: receiver.url,
    token: await prepareWithToken(receiverDb.url),
    keys,
    port: receiverPort,
    profile: requestProfiles.full,
    writerDirectory: null,
  });
  const endpoint = `http://127.0.0.1:${receiverPort}/as2`;

  // ---- pier: file-poller `erp` → as2-sender `out`, organization alice (ALICE) → partner bob (BOB).
  const bench = benchApi(pier.url, await prepareWithToken(senderDb.url));
  const api = bench.post;
  const cert = await bench.certificate(keys.certificatePath, keys.keyPath);
  await api('/plugins/configs?type=as2-sender', {
    enabled: false,
    name: 'out',
    ...(parallel === 'default' ? {} : { max_concurrent_deliveries: Number(parallel) }),
  });
  const o = await api('/organizations', { name: 'alice' });
  await api('/as2/local-profiles', {
    local_organization_id: o.id,
    as2id: 'ALICE',
    signing_certificate_id: cert,
  });
  const p = await api('/partners', { name: 'bob' });
  await api('/as2/remote-profiles', {
    business_partner_id: p.id,
    as2id: 'BOB',
    signing_algorithm: 'sha256',
    encryption_algorithm: 'aes256-cbc',
    compression: true,
    mdn_mode: 'sync',
    mdn_signed: true,
    partner_certificate_id: cert,
    signature_certificate_ids: [cert],
    endpoint,
  });
  const pierBase = path.join(work.path, 'pier-outbox');
  mkdirSync(path.join(pierBase, 'bob'), { recursive: true });
  await api('/plugins/configs?type=file-poller', {
    enabled: false,
    name: 'erp',
    base_directory: pierBase,
    processed_directory: path.join(work.path, 'pier-sent'),
    from: 'alice',
    polling_interval: 1,
  });
  await api('/routes', { source_plugin: 'erp', from: 'alice', to: 'bob', target_plugin: 'out' });
  await api('/services/as2-sender/out/start', {});
  await api('/services/file-poller/erp/start', {});
  await client.connect();

  // ---- OpenAS2: partnership ALICE → BOB with a directory poller.
  const oPort = receiverPort + 10000;
  const openas2Outbox = path.join(work.path, 'openas2-outbox');
  mkdirSync(openas2Outbox, { recursive: true });
  openas2 = await startOpenAs2(home, {
    workDir: work.path,
    certificatePath: keys.certificatePath,
    keyPath: keys.keyPath,
    parties: ['ALICE', 'BOB'],
    partnerships: [
      {
        sender: 'ALICE',
        receiver: 'BOB',
        attributes: {
          protocol: 'as2',
          subject: 'File $attributes.filename$ sent from $sender.name$ to $receiver.name$',
          content_transfer_encoding: 'binary',
          compression_type: 'ZLIB',
          as2_url: endpoint,
          as2_mdn_to: 'edi@alice.example',
          as2_mdn_options:
            'signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256',
          encrypt: 'AES256',
          sign: 'SHA-256',
          resend_max_retries: '0',
        },
        poller: { outbox: openas2Outbox, interval_s: 1 },
      },
    ],
    port: oPort,
    mdnPort: oPort + 1,
    properties:
      parallel === 'default'
        ? {}
        : {
            'pollerConfigBase.process_files_in_parallel': 'true',
            'pollerConfigBase.max_parallel_files': parallel,
          },
  });
  const openas2Receipts = path.join(openas2.dataDir, 'ALICE-BOB', 'mdn');
  const openas2Errors = path.join(openas2.dataDir, 'outbox', 'error');

  const senders: Sender[] = [
    {
      name: 'pier',
      pid: pier.pid,
      databaseName: senderDb.name,
      outbox: path.join(pierBase, 'bob'),
      async progress() {
        const r = await client.query<{ status: string; n: string }>(
          `select status, count(*) n from message where direction = 'outbound' group by status`,
        );
        const c = Object.fromEntries(r.rows.map((x) => [x.status, Number(x.n)]));
        return { done: c.Delivered ?? 0, failed: (c.Error ?? 0) + (c.Failed ?? 0) };
      },
    },
    {
      name: 'openas2',
      pid: openas2.pid,
      databaseName: null,
      outbox: openas2Outbox,
      progress: async () => ({
        done: await countFiles(openas2Receipts),
        failed: await countFiles(openas2Errors),
      }),
    },
  ];

  let dropped = 0;
  /** Drops n files into the sender's outbox and waits for their receipts; the case's figures. */
  const runCase = async (sender: Sender, n: number) => {
    const staging = path.join(work.path, `staging-${sender.name}`);
    mkdirSync(staging, { recursive: true });
    const names = Array.from({ length: n }, () => `order-${++dropped}.edi`);
    for (const name of names) writeFileSync(path.join(staging, name), document);
    const before = await sender.progress();
    const cpu0 = cpuMsOf(sender.pid);
    const pgCpu = sender.databaseName ? watchPostgresCpu(sender.databaseName) : { stop: () => 0 };
    const startedAt = performance.now();
    for (const name of names) renameSync(path.join(staging, name), path.join(sender.outbox, name));
    let last = before;
    let changedAt = performance.now();
    for (;;) {
      const now = await sender.progress();
      if (now.done !== last.done || now.failed !== last.failed) changedAt = performance.now();
      last = now;
      if (now.done - before.done + now.failed - before.failed >= n) break;
      if (performance.now() - changedAt > stallMs)
        throw new Error(
          `${sender.name}: ${n - (now.done - before.done)} of ${n} without a receipt after a stall`,
        );
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - startedAt) / 1000;
    return {
      done: last.done - before.done,
      failed: last.failed - before.failed,
      seconds,
      serverMs: cpuMsOf(sender.pid) - cpu0,
      postgresMs: pgCpu.stop(),
    };
  };

  for (const sender of senders) {
    if (warmUp === 0) break;
    log(`warming up ${sender.name} with ${warmUp} files…`);
    const w = await runCase(sender, warmUp);
    if (w.failed > 0) throw new Error(`${sender.name} warm-up: ${w.failed} files failed`);
  }
  // Leftovers of the warm-up (OpenAS2's pending files, pier's sweep) settle before timing.
  await new Promise((r) => setTimeout(r, 3000));
  if (readdirSync(openas2Outbox).length > 0) throw new Error('OpenAS2 left files in its outbox');

  let rsa = opensslRsaSignsPerSecond();
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? senders : [...senders].reverse();
    const pair: Record<string, unknown> = { round: round + 1, files, parallel };
    for (const sender of order) {
      const m = await runCase(sender, files);
      const rsaNow = opensslRsaSignsPerSecond();
      const rsaMean = (rsa + rsaNow) / 2;
      rsa = rsaNow;
      const ok = Math.max(m.done, 1);
      pair[sender.name] = {
        done: m.done,
        failed: m.failed,
        msg_per_s: Number((m.done / m.seconds).toFixed(1)),
        cpu_ms_per_msg: {
          server: Number((m.serverMs / ok).toFixed(2)),
          postgres: Number((m.postgresMs / ok).toFixed(2)),
        },
        rsa_ops_per_msg: Number((((m.serverMs + m.postgresMs) * rsaMean) / 1000 / ok).toFixed(2)),
        openssl_rsa2048_sign_per_s: Math.round(rsaMean),
        rss_mib: Math.round(rssOf(sender.pid) / 1048576),
      };
    }
    const pierF = pair.pier as { msg_per_s: number; rsa_ops_per_msg: number };
    const oF = pair.openas2 as { msg_per_s: number; rsa_ops_per_msg: number };
    pair.pier_over_openas2 = {
      msg_per_s: Number((pierF.msg_per_s / oF.msg_per_s).toFixed(2)),
      rsa_ops_per_msg: Number((pierF.rsa_ops_per_msg / oF.rsa_ops_per_msg).toFixed(2)),
    };
    pair.first = order[0]!.name;
    log(JSON.stringify(pair));
    results.push(pair);
  }
} finally {
  await openas2?.stop();
  await client.end().catch(() => undefined);
  await pier.stop();
  await receiver.stop();
  await senderDb.drop();
  await receiverDb.drop();
  work.finish();
}
console.log(
  JSON.stringify({ benchmark: 'openas2-send', files, rounds, parallel, warm_up: warmUp, cases: results }),
);
