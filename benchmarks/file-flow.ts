/**
 * The file flow: file-poller → route → file-writer in a real `pier serve` process.
 *   backlog: 10,000 files of 4 KiB present when the poller starts;
 *   paced:   files arriving at a steady rate (default 600/s for 15 s);
 *   upload:  one 64 MiB file sent by hand (POST /messages) and delivered to a file writer,
 *            with the server process's peak RSS growth.
 * Figures: messages/s (first acceptance to last delivery) and p50/p99 acceptance-to-delivered
 * latency, from the stored timestamps. Targets: ≥ 500 messages/s, p99 < 1 s, RSS growth
 * < 64 MiB. Prints one JSON line; progress goes to stderr.
 * Options: --files <n> (10000), --rate <files/s> (600), --seconds <n> (15),
 *          --concurrency <writer max_concurrent_deliveries> (16), --skip <backlog|paced|upload>,
 *          --size <bytes of each file> (4096), --storage local|s3 (s3: an s3rver bucket, lib/s3.ts).
 * Needs DATABASE_URL (a PostgreSQL server; a fresh database is made and dropped).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { postgresCpuMs } from './lib/cpu.js';
import { startDevPier, type DevPier } from './lib/dev-pier.js';
import { startBenchS3, type BenchS3 } from './lib/s3.js';
import { migrate, openDatabase } from '../storage/db.js';
import { benchWorkDir } from './lib/work-dir.js';

const { values } = parseArgs({
  options: {
    files: { type: 'string' },
    rate: { type: 'string' },
    seconds: { type: 'string' },
    concurrency: { type: 'string' },
    skip: { type: 'string', multiple: true },
    size: { type: 'string' },
    storage: { type: 'string' },
  },
});
const fileBytes = Number(values.size ?? 4096);
const storage = values.storage ?? 'local';
if (storage !== 'local' && storage !== 's3') throw new Error('--storage is local or s3');
const files = Number(values.files ?? 10_000);
const rate = Number(values.rate ?? 600);
const seconds = Number(values.seconds ?? 15);
const concurrency = Number(values.concurrency ?? 16);
const skip = new Set(values.skip ?? []);
const log = (...args: unknown[]) => console.error('[file-flow]', ...args);

const admin = process.env.DATABASE_URL;
if (!admin) throw new Error('Set DATABASE_URL to a PostgreSQL server');

async function withDatabase<T>(work: (url: string) => Promise<T>): Promise<T> {
  const name = `pier_bench_${randomBytes(4).toString('hex')}`;
  const adminClient = new pg.Client({ connectionString: admin });
  await adminClient.connect();
  await adminClient.query(`create database "${name}"`);
  if (process.env.BENCH_ASYNC_COMMIT)
    await adminClient.query(`alter database "${name}" set synchronous_commit = off`);
  const url = new URL(admin!);
  url.pathname = `/${name}`;
  try {
    return await work(url.toString());
  } finally {
    await adminClient.query(`drop database if exists "${name}" with (force)`);
    await adminClient.end();
  }
}

type Pier = DevPier;

async function configure(pier: Pier, dir: string): Promise<void> {
  await pier.post('/organizations', { name: 'acme' });
  await pier.post('/partners', { name: 'globex' });
  await pier.post('/plugins/configs?type=file-writer', {
    enabled: false,
    name: 'out',
    directory: path.join(dir, 'out'),
    max_concurrent_deliveries: concurrency,
  });
  await pier.post('/plugins/configs?type=file-poller', {
    enabled: false,
    name: 'in',
    base_directory: path.join(dir, 'in'),
    processed_directory: path.join(dir, 'done'),
    from: 'acme',
    polling_interval: 1,
  });
  await pier.post('/routes', { source_plugin: 'in', from: 'acme', to: 'globex', target_plugin: 'out' });
  await pier.post('/services/file-writer/out/start', {});
}

const fourKiB = (i: number) => `${i}:`.padEnd(fileBytes, 'x');

async function waitDelivered(db: pg.Client, n: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await db.query<{ n: number }>(
      "select count(*)::int as n from delivery where state = 'delivered'",
    );
    if (rows[0]!.n >= n) return;
    if (Date.now() > deadline) throw new Error(`only ${rows[0]!.n} of ${n} delivered in time`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Messages/s from the first acceptance to the last delivery; latency per message. */
async function figures(db: pg.Client) {
  const { rows } = await db.query<{ ms: number; created: Date; finished: Date }>(
    `select extract(epoch from (d.finished_at - m.created_at)) * 1000 as ms, m.created_at as created, d.finished_at as finished
       from message m join delivery d on d.message_id = m.id where d.state = 'delivered'`,
  );
  const ms = rows.map((r) => Number(r.ms)).sort((a, b) => a - b);
  const first = Math.min(...rows.map((r) => r.created.getTime()));
  const last = Math.max(...rows.map((r) => r.finished.getTime()));
  const accepted = rows.map((r) => r.created.getTime());
  const acceptSpan = (Math.max(...accepted) - first) / 1000;
  const pct = (p: number) => Math.round(ms[Math.min(ms.length - 1, Math.floor((p / 100) * ms.length))]!);
  return {
    messages: rows.length,
    seconds: Math.round((last - first) / 10) / 100,
    messages_per_s: Math.round(rows.length / ((last - first) / 1000)),
    p50_ms: pct(50),
    p99_ms: pct(99),
    max_ms: Math.round(ms.at(-1)!),
    accepted_per_s: Math.round(rows.length / acceptSpan),
  };
}

async function run<T>(
  name: string,
  work: (pier: Pier, db: pg.Client, dir: string) => Promise<T>,
): Promise<T> {
  return withDatabase(async (url) => {
    const workDir = benchWorkDir(`pier-bench-${name}-`);
    const dir = workDir.path;
    let s3: BenchS3 | undefined;
    if (storage === 's3') {
      s3 = await startBenchS3();
      const orm = await openDatabase(url, { poolMax: 1 });
      await migrate(orm);
      await s3.select(orm);
      await orm.close();
    }
    const pier = await startDevPier(url, dir, s3?.env);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      return await work(pier, db, dir);
    } finally {
      await db.end();
      await pier.stop();
      await s3?.close();
      workDir.finish();
    }
  });
}

/** CPU seconds (user, system) the process has used, all its threads together. */
async function cpuOf(pid: number): Promise<{ user: number; system: number }> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat, in clock ticks of 1/100 s.
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
}

/** CPU seconds of every PostgreSQL process on this machine (the server the benchmark uses, when local). */
const postgresCpu = async () => postgresCpuMs() / 1000;

async function cpuPerMessage(pid: number, before: { user: number; system: number; pg: number }, n: number) {
  const after = await cpuOf(pid);
  const pg = await postgresCpu();
  return {
    postgres_cpu_ms_per_message: Math.round(((pg - before.pg) * 1000 * 100) / n) / 100,
    pier_cpu_user_ms_per_message: Math.round(((after.user - before.user) * 1000 * 100) / n) / 100,
    pier_cpu_system_ms_per_message: Math.round(((after.system - before.system) * 1000 * 100) / n) / 100,
  };
}

async function backlog() {
  return run('backlog', async (pier, db, dir) => {
    await configure(pier, dir);
    const inbox = path.join(dir, 'in', 'globex');
    await mkdir(inbox, { recursive: true });
    for (let i = 0; i < files; i++) await writeFile(path.join(inbox, `f${i}.edi`), fourKiB(i));
    log(`${files} files written; starting the poller`);
    const cpu = { ...(await cpuOf(pier.child.pid!)), pg: await postgresCpu() };
    await pier.post('/services/file-poller/in/start', {});
    await waitDelivered(db, files, 300_000);
    return {
      files,
      file_bytes: fileBytes,
      storage,
      ...(await figures(db)),
      ...(await cpuPerMessage(pier.child.pid!, cpu, files)),
    };
  });
}

async function paced() {
  return run('paced', async (pier, db, dir) => {
    await configure(pier, dir);
    const inbox = path.join(dir, 'in', 'globex');
    await mkdir(inbox, { recursive: true });
    await pier.post('/services/file-poller/in/start', {});
    const total = rate * seconds;
    log(`feeding ${rate} files/s for ${seconds} s`);
    const cpu = { ...(await cpuOf(pier.child.pid!)), pg: await postgresCpu() };
    // Every 100 ms the files due by then, written in parallel under a hidden name and
    // renamed, as a well-behaved producer does.
    const started = Date.now();
    let made = 0;
    while (made < total) {
      const due = Math.min(total, Math.floor(((Date.now() - started) / 1000) * rate) + Math.ceil(rate / 10));
      const batch = Array.from({ length: due - made }, (_, k) => made + k);
      await Promise.all(
        batch.map(async (i) => {
          const name = `p${i}.edi`;
          await writeFile(path.join(inbox, `.${name}`), fourKiB(i));
          await rename(path.join(inbox, `.${name}`), path.join(inbox, name));
        }),
      );
      made = due;
      const next = started + (made / rate) * 1000 - Math.ceil(rate / 10) * (1000 / rate);
      if (next > Date.now()) await new Promise((r) => setTimeout(r, next - Date.now()));
    }
    const fed = (Date.now() - started) / 1000;
    log(`fed ${total} files in ${fed} s`);
    await waitDelivered(db, total, 300_000);
    return {
      rate_files_per_s: rate,
      fed_per_s: Math.round(total / fed),
      files: total,
      ...(await figures(db)),
      ...(await cpuPerMessage(pier.child.pid!, cpu, total)),
    };
  });
}

function rssOf(pid: number): Promise<{ rss: number; hwm: number }> {
  return readFile(`/proc/${pid}/status`, 'utf8').then((text) => {
    const kib = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(text)![1]) * 1024;
    return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
  });
}

/** Streams a multipart form with a generated file of `size` bytes; never holds the file. */
function uploadStream(
  url: string,
  size: number,
  fileName: string,
): Promise<{ status: number; body: string }> {
  const boundary = `bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    [
      `--${boundary}\r\nContent-Disposition: form-data; name="from"\r\n\r\nacme\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="to"\r\n\r\nglobex\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="target"\r\n\r\nout\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\n`,
      'Content-Type: application/octet-stream\r\n\r\n',
    ].join(''),
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const request = http.request(`${url}/api/v1/messages`, {
      method: 'POST',
      headers: {
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + size + tail.length),
        'x-requested-with': 'bench',
      },
    });
    request.on('response', (response) => {
      let body = '';
      response.on('data', (c: Buffer) => (body += c.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.write(head);
    const chunk = Buffer.alloc(256 * 1024, 0x61);
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        const piece = chunk.subarray(0, Math.min(chunk.length, size - sent));
        sent += piece.length;
        if (!request.write(piece)) return void request.once('drain', pump);
      }
      request.end(tail);
    };
    pump();
  });
}

async function upload() {
  return run('upload', async (pier, db, dir) => {
    await configure(pier, dir);
    const pid = pier.child.pid!;
    // Warm up: one message through the same path, above the inline limit so that it reaches the
    // store: the threads involved load the store's code (the AWS SDK: about 24 MiB per thread)
    // before the measurement, which is then the upload's own memory.
    const small = await uploadStream(pier.url, 256 * 1024, 'warm-up.bin');
    if (small.status !== 201) throw new Error(small.body);
    await waitDelivered(db, 1, 30_000);
    global.gc?.();
    await new Promise((r) => setTimeout(r, 500));
    const before = await rssOf(pid);
    // Resets the peak (VmHWM) to the current RSS.
    await writeFile(`/proc/${pid}/clear_refs`, '5');
    const size = 64 * 1024 * 1024;
    const started = Date.now();
    const big = await uploadStream(pier.url, size, 'big.bin');
    if (big.status !== 201) throw new Error(big.body);
    // The peak while the upload streamed in; then, from the same start, while it was delivered.
    const uploaded = await rssOf(pid);
    await waitDelivered(db, 2, 60_000);
    const elapsed = Date.now() - started;
    const after = await rssOf(pid);
    const written = (
      await import('node:fs/promises').then((fs) => fs.stat(path.join(dir, 'out', 'acme', 'big.bin')))
    ).size;
    const mib = (n: number) => Math.round((n / 1024 / 1024) * 10) / 10;
    return {
      bytes: size,
      delivered_bytes: written,
      seconds: elapsed / 1000,
      rss_before_mib: mib(before.rss),
      rss_peak_mib: mib(after.hwm),
      rss_growth_mib: mib(after.hwm - before.rss),
      rss_growth_while_uploading_mib: mib(uploaded.hwm - before.rss),
    };
  });
}

const result: Record<string, unknown> = {
  benchmark: 'file-flow',
  node: process.version,
  cpus: os.cpus().length,
  writer_max_concurrent_deliveries: concurrency,
};
if (!skip.has('backlog')) result.backlog = await backlog();
if (!skip.has('paced')) result.paced = await paced();
if (!skip.has('upload')) result.upload = await upload();
console.log(JSON.stringify(result));
