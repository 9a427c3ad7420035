/**
 * AS2 end to end on one machine: a pier sender posts to a pier receiver (one `pier serve`
 * playing both sides, over real HTTP on loopback), 10 KiB EDI-like payloads, SHA-256 signed,
 * AES-256-CBC encrypted, compressed, synchronous signed receipt, RSA-2048. Messages enter by
 * POST /messages (--clients concurrent uploads) and count when Delivered (receipt verified).
 * Reports messages/s, server CPU per message (/proc of the server process), the ratio to the
 * RSA limit of `openssl speed -seconds 3 rsa2048` (three private-key operations per message:
 * sender signs, receiver decrypts, receiver signs the receipt), then one 64 MiB file through
 * the same path with the server's peak RSS growth.
 * With `--source files` the messages come from a file poller instead (files dropped into its
 * directory, as an ERP hands over EDI), without the cost of an HTTP upload each.
 * The sender works on 100 deliveries at a time (the most max_concurrent_deliveries allows):
 * with the receiver on the same machine, more in flight means larger batches per commit.
 * Options: --messages <n> (default 5000), --clients <n> (default 32), --source upload|files,
 * --no-large, --large-random (the 64 MiB file is random bytes, which compression cannot shrink,
 * instead of repeated EDI lines: the worst case for memory on both sides), --size <bytes of each
 * document> (10240), --storage local|s3 (s3: an s3rver bucket in this process, lib/s3.ts).
 */
import { execFileSync } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { prepareWithToken } from './lib/api-token.js';
import { loopbackDocument } from './lib/as2-requests.js';
import { benchApi } from './lib/bench-api.js';
import { cpuMsOf, postgresCpuMs, rssOf } from './lib/cpu.js';
import { benchDatabase } from './lib/database.js';
import { startServerProcess } from './lib/server-process.js';
import { startBenchS3 } from './lib/s3.js';
import { benchWorkDir } from './lib/work-dir.js';

const { values } = parseArgs({
  options: {
    messages: { type: 'string' },
    clients: { type: 'string' },
    source: { type: 'string' },
    'no-large': { type: 'boolean' },
    'large-random': { type: 'boolean' },
    size: { type: 'string' },
    storage: { type: 'string' },
  },
});
const documentBytes = Number(values.size ?? 10240);
const storage = values.storage ?? 'local';
if (storage !== 'local' && storage !== 's3') throw new Error('--storage is local or s3');
const s3 = storage === 's3' ? await startBenchS3() : undefined;
const total = Number(values.messages ?? 5000);
const clients = Number(values.clients ?? 32);
const source = values.source ?? 'upload';
if (source !== 'upload' && source !== 'files') throw new Error('--source is upload or files');
const log = (text: string) => process.stderr.write(`${text}\n`);

const db = await benchDatabase();
const token = await prepareWithToken(db.url, s3 ? (orm) => s3.select(orm) : undefined);

const work = benchWorkDir('pier-bench-as2-');
const workDir = work.path;
execFileSync(
  'openssl',
  [...'req -x509 -newkey rsa:2048 -nodes -keyout k.pem -out c.pem -days 30 -subj /CN=bench'.split(' ')],
  { cwd: workDir, stdio: 'ignore' },
);

const server = await startServerProcess(db.url, s3?.env);
const client = new pg.Client({ connectionString: db.url });
await client.connect();
try {
  const bench = benchApi(server.url, token);
  const { auth } = bench;
  const api = bench.post;
  const cert = await bench.certificate(path.join(workDir, 'c.pem'), path.join(workDir, 'k.pem'));
  const port = 20000 + Math.floor(Math.random() * 20000);
  const endpoint = `http://127.0.0.1:${port}/as2`;
  await api('/plugins/configs?type=as2-receiver', {
    enabled: false,
    name: 'in',
    host: '127.0.0.1',
    port,
    path: '/as2',
  });
  await api('/plugins/configs?type=as2-sender', {
    enabled: false,
    name: 'out',
    max_attempts: 1,
    max_concurrent_deliveries: 100,
  });
  const profile = {
    signing_algorithm: 'sha256',
    encryption_algorithm: 'aes256-cbc',
    compression: true,
    mdn_mode: 'sync',
    mdn_signed: true,
    partner_certificate_id: cert,
    signature_certificate_ids: [cert],
    endpoint,
  };
  // Sending side: org `acme` → partner `globex`; receiving side: org `globex-in` ← partner `acme-out`.
  for (const [org, as2id] of [
    ['acme', 'ACME'],
    ['globex-in', 'GLOBEX'],
  ] as const) {
    const o = await api('/organizations', { name: org });
    await api('/as2/local-profiles', { local_organization_id: o.id, as2id, signing_certificate_id: cert });
  }
  for (const [partner, as2id] of [
    ['globex', 'GLOBEX'],
    ['acme-out', 'ACME'],
  ] as const) {
    const p = await api('/partners', { name: partner });
    await api('/as2/remote-profiles', { business_partner_id: p.id, as2id, ...profile });
  }
  const inbox = path.join(workDir, 'outbox', 'globex');
  if (source === 'files') {
    await mkdir(inbox, { recursive: true });
    await api('/plugins/configs?type=file-poller', {
      enabled: false,
      name: 'erp',
      base_directory: path.join(workDir, 'outbox'),
      processed_directory: path.join(workDir, 'sent'),
      from: 'acme',
      polling_interval: 1,
    });
    await api('/routes', { source_plugin: 'erp', from: 'acme', to: 'globex', target_plugin: 'out' });
    await api('/services/file-poller/erp/start', {});
  }
  await api('/services/as2-receiver/in/start', {});
  await api('/services/as2-sender/out/start', {});

  const document = loopbackDocument(documentBytes);
  // The load generator must not be what limits: keep-alive connections and a multipart body
  // put together by hand cost a fraction of fetch + FormData (measured: ≈ 2 ms of CPU per
  // upload on this machine, a sixth of the whole run's CPU).
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const boundary = 'pier-bench-boundary-7d1f0c';
  const field = (name: string, value: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const fields = field('from', 'acme') + field('to', 'globex') + field('target', 'out');
  const send = (content: Buffer, name: string) =>
    new Promise<void>((resolve, reject) => {
      const head = Buffer.from(
        `${fields}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      );
      const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
      const request = http.request(
        `${server.url}/api/v1/messages`,
        {
          method: 'POST',
          agent,
          headers: {
            ...auth,
            'x-requested-with': 'XMLHttpRequest',
            'content-type': `multipart/form-data; boundary=${boundary}`,
            'content-length': head.length + content.length + tail.length,
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            response.statusCode === 201
              ? resolve()
              : reject(new Error(`upload: ${response.statusCode} ${Buffer.concat(chunks).toString()}`)),
          );
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.write(head);
      request.write(content);
      request.end(tail);
    });
  const counts = async () => {
    const r = await client.query<{ status: string; n: string }>(
      `select status, count(*) n from message where direction = 'outbound' group by status`,
    );
    return Object.fromEntries(r.rows.map((x) => [x.status, Number(x.n)]));
  };
  const waitDone = async (expected: number, timeoutS: number) => {
    const deadline = Date.now() + timeoutS * 1000;
    for (;;) {
      const c = await counts();
      const finished = (c.Delivered ?? 0) + (c.Error ?? 0) + (c.Failed ?? 0);
      if (finished >= expected) return c;
      if (Date.now() > deadline) throw new Error(`timed out: ${JSON.stringify(c)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  // Files are written under a hidden name and renamed, as a well-behaved producer does.
  const dropAll = async (n: number, offset: number) => {
    for (let i = 0; i < n; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, n - i) }, async (_, k) => {
          const name = `order-${offset + i + k}.edi`;
          await writeFile(path.join(inbox, `.${name}`), document);
          await rename(path.join(inbox, `.${name}`), path.join(inbox, name));
        }),
      );
    }
  };
  const uploadAll = async (n: number, offset: number) => {
    if (source === 'files') return dropAll(n, offset);
    let next = 0;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (next < n) {
          const i = next++;
          await send(document, `order-${offset + i}.edi`);
        }
      }),
    );
  };

  log('warming up…');
  const warm = 100;
  await uploadAll(warm, 0);
  const warmed = await waitDone(warm, 120);
  if ((warmed.Delivered ?? 0) !== warm) throw new Error(`warm-up not delivered: ${JSON.stringify(warmed)}`);

  // Database work per message: committed transactions and statements of this database.
  const dbWork = async () => {
    const r = await client.query<{ xact: string; tup: string }>(
      `select xact_commit xact, tup_returned + tup_inserted + tup_updated + tup_deleted tup
         from pg_stat_database where datname = current_database()`,
    );
    return { xact: Number(r.rows[0]!.xact), tup: Number(r.rows[0]!.tup) };
  };
  log(`sending ${total} messages…`);
  const dbBefore = await dbWork();
  const cpuBefore = cpuMsOf(server.pid);
  const pgBefore = postgresCpuMs(db.name);
  const loadBefore = process.cpuUsage();
  const started = performance.now();
  await uploadAll(total, warm);
  const done = await waitDone(warm + total, 600);
  const seconds = (performance.now() - started) / 1000;
  const cpuMs = cpuMsOf(server.pid) - cpuBefore;
  const pgMs = postgresCpuMs(db.name) - pgBefore;
  const load = process.cpuUsage(loadBefore);
  const loadMs = (load.user + load.system) / 1000;
  const delivered = (done.Delivered ?? 0) - warm;
  const dbAfter = await dbWork();
  if (delivered < total) {
    // A benchmark that lost messages says why, before its database is dropped.
    const why = await client.query<{ status: string; last_error: string | null; n: string }>(
      `select m.status, d.last_error, count(*) n from message m left join delivery d on d.message_id = m.id
        where m.status in ('Error', 'Failed') group by 1, 2 order by 3 desc limit 10`,
    );
    for (const row of why.rows) log(`${row.n} × ${row.status}: ${row.last_error ?? '(no delivery error)'}`);
  }
  const perSecond = delivered / seconds;

  const speed = execFileSync('openssl', ['speed', '-seconds', '3', 'rsa2048'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  })
    .toString()
    .split('\n')
    .find((l) => /^rsa\s+2048/.test(l));
  const signsPerS = Number(speed?.trim().split(/\s+/)[5] ?? NaN);
  const cores = os.availableParallelism();
  const rsaLimit = (signsPerS * cores) / 3;

  let large: Record<string, number> | undefined;
  if (!values['no-large']) {
    log('sending 64 MiB…');
    const big = Buffer.alloc(64 * 1024 * 1024);
    // Random bytes do not compress, so every layer (compressed, encrypted) is as large as the file.
    if (values['large-random']) randomFillSync(big);
    else for (let i = 0; i < big.length; i += document.length) document.copy(big, i);
    const rssBase = rssOf(server.pid);
    let peak = rssBase;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(server.pid))), 20);
    const t0 = performance.now();
    await send(big, 'large.edi');
    const after = await waitDone(warm + total + 1, 600);
    clearInterval(sampler);
    large = {
      large_ok: (after.Delivered ?? 0) - warm - delivered === 1 ? 1 : 0,
      large_seconds: Math.round((performance.now() - t0) / 100) / 10,
      large_rss_growth_mib: Math.round((peak - rssBase) / 1024 / 1024),
    };
  }
  console.log(
    JSON.stringify({
      benchmark: 'as2-loopback',
      messages: total,
      source,
      storage,
      document_bytes: documentBytes,
      ...(source === 'upload' ? { clients } : {}),
      delivered,
      failed: total - delivered,
      seconds: Math.round(seconds * 10) / 10,
      messages_per_s: Math.round(perSecond),
      cpu_ms_per_message: Math.round((cpuMs / delivered) * 100) / 100,
      // PostgreSQL's backends serving this database (when it runs on this machine); with the
      // server's CPU, the messages/s the cores would allow if nothing else ran.
      postgres_cpu_ms_per_message: Math.round((pgMs / delivered) * 100) / 100,
      // This script's own CPU (uploads or file drops, and the polling for Delivered).
      load_generator_cpu_ms_per_message: Math.round((loadMs / delivered) * 100) / 100,
      cpu_bound_messages_per_s: Math.round((os.availableParallelism() * 1000 * delivered) / (cpuMs + pgMs)),
      db_commits_per_message: Math.round(((dbAfter.xact - dbBefore.xact) / delivered) * 10) / 10,
      db_rows_per_message: Math.round((dbAfter.tup - dbBefore.tup) / delivered),
      openssl_rsa2048_sign_per_s: signsPerS,
      cores,
      rsa_limit_messages_per_s: Math.round(rsaLimit),
      ratio_to_rsa_limit: Math.round((perSecond / rsaLimit) * 1000) / 1000,
      // The same ratio from CPU time, which a busy machine does not distort: the three RSA
      // operations' CPU over everything pier and PostgreSQL spent per message.
      rsa_share_of_cpu: Math.round(((3000 / signsPerS) * delivered * 1000) / (cpuMs + pgMs)) / 1000,
      ...large,
    }),
  );
} finally {
  await client.end();
  await server.stop();
  await db.drop();
  await s3?.close();
  work.finish();
}
