/**
 * SFTP throughput: files per second through `sftp-poller → file-writer` (pull) and
 * `file-poller → sftp-sender` (push) in a real `pier serve` process, against OpenSSH's own
 * `sftp -b` moving the same files over the same loopback sshd (Debian's, started here with its
 * own host key and a temporary user, as the tests start it: needs root).
 *   pier: files/s over wall_s, from starting the source instance to the last delivery: the
 *         polling waits are in it (the sftp-poller takes a file at its second look, 1 s after
 *         the first; the file poller's first look only notes). `seconds` is from the first
 *         acceptance to the last delivery (for a pull the download comes before it);
 *   sftp: `get` or `put` of the whole set in one batch, wall time.
 * CPU per file is the client side's (pier's process, every thread, plus its PostgreSQL
 * backends; the sftp client), in milliseconds and in RSA-2048 private-key operations of
 * `openssl speed -seconds 2 rsa2048` run in the same session. sshd's CPU is in neither.
 * Options: --small <files of 10 KiB> (1000), --large <files of 10 MiB> (30),
 *          --concurrency <sender and writer max_concurrent_deliveries> (4).
 * Needs DATABASE_URL. Prints one JSON line; progress goes to stderr.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import pg from 'pg';
import { startSshd, type Sshd } from '../test/helpers/sshd.js';
import { cpuMsOf, postgresCpuMs } from './lib/cpu.js';
import { startDevPier } from './lib/dev-pier.js';

const run = promisify(execFile);
const { values } = parseArgs({
  options: { small: { type: 'string' }, large: { type: 'string' }, concurrency: { type: 'string' } },
});
const concurrency = Number(values.concurrency ?? 4);
const sets = [
  { label: '10 KiB', bytes: 10 * 1024, count: Number(values.small ?? 1000) },
  { label: '10 MiB', bytes: 10 * 1024 * 1024, count: Number(values.large ?? 30) },
];
const log = (...args: unknown[]) => console.error('[sftp]', ...args);
const admin = process.env.DATABASE_URL;
if (!admin) throw new Error('Set DATABASE_URL to a PostgreSQL server');

/** RSA-2048 private-key operations per second on this machine now (`openssl speed`). */
async function rsaSignsPerSecond(): Promise<number> {
  const { stdout } = await run('openssl', ['speed', '-seconds', '2', 'rsa2048'], { maxBuffer: 1 << 20 });
  const m = /rsa\s+2048 bits\s+\S+\s+\S+\s+([\d.]+)/.exec(stdout);
  if (!m) throw new Error(`openssl speed printed no rsa2048 line: ${stdout}`);
  return Number(m[1]);
}

async function withDatabase<T>(work: (url: string, name: string) => Promise<T>): Promise<T> {
  const name = `pier_bench_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`create database "${name}"`);
  const url = new URL(admin!);
  url.pathname = `/${name}`;
  try {
    return await work(url.toString(), name);
  } finally {
    await client.query(`drop database if exists "${name}" with (force)`);
    await client.end();
  }
}

/** The server of the benchmark: no metrics port. */
const startPier = (databaseUrl: string, dir: string) =>
  startDevPier(databaseUrl, dir, { METRICS_PORT: 'off' });

async function fill(dir: string, count: number, bytes: number, owner?: Sshd): Promise<void> {
  await mkdir(dir, { recursive: true });
  const block = randomBytes(bytes);
  for (let i = 0; i < count; i++) {
    // Each file its own bytes at the start, so no two are alike.
    const head = Buffer.from(`${i}:`);
    await writeFile(path.join(dir, `f${i}.dat`), Buffer.concat([head, block.subarray(head.length)]));
  }
  if (owner) await run('chown', ['-R', `${owner.user}:${owner.user}`, dir]).catch(() => {});
}

interface Figures {
  files_per_s: number;
  seconds: number;
  wall_s: number;
  cpu_ms_per_file: number;
  rsa_ops_per_file?: number;
}

/** One pier run: `direction` pull (sftp-poller → file-writer) or push (file-poller → sftp-sender). */
async function pierRun(
  sshd: Sshd,
  direction: 'pull' | 'push',
  bytes: number,
  count: number,
): Promise<Figures> {
  return withDatabase(async (url, database) => {
    const dir = await import('node:fs/promises').then((fs) =>
      fs.mkdtemp(path.join(os.tmpdir(), 'pier-bench-sftp-')),
    );
    const remote = await sshd.directory(`bench-${direction}-${randomBytes(3).toString('hex')}`);
    const pier = await startPier(url, dir);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const login = {
        host: sshd.host,
        port: sshd.port,
        username: sshd.user,
        password: sshd.password,
        host_key_fingerprint: sshd.fingerprint,
      };
      await pier.post('/organizations', { name: 'acme' });
      await pier.post('/partners', { name: 'globex' });
      if (direction === 'pull') {
        await fill(remote, count, bytes, sshd);
        await pier.post('/plugins/configs?type=file-writer', {
          name: 'out',
          directory: path.join(dir, 'out'),
          max_concurrent_deliveries: concurrency,
        });
        await pier.post('/plugins/configs?type=sftp-poller', {
          name: 'in',
          enabled: false,
          ...login,
          remote_directory: remote,
          after_take: 'delete',
          from: 'globex',
          to: 'acme',
          polling_interval: 1,
        });
      } else {
        await fill(path.join(dir, 'in', 'globex'), count, bytes);
        await pier.post('/plugins/configs?type=sftp-sender', {
          name: 'out',
          ...login,
          remote_directory: remote,
          path_pattern: '{filename}',
          max_concurrent_deliveries: concurrency,
        });
        await pier.post('/plugins/configs?type=file-poller', {
          name: 'in',
          enabled: false,
          base_directory: path.join(dir, 'in'),
          processed_directory: path.join(dir, 'done'),
          from: 'acme',
          polling_interval: 1,
        });
      }
      await pier.post('/routes', {
        source_plugin: 'in',
        from: direction === 'pull' ? 'globex' : 'acme',
        to: '*',
        target_plugin: 'out',
      });
      const cpu0 = cpuMsOf(pier.child.pid!);
      const pg0 = postgresCpuMs(database);
      const started = Date.now();
      await pier.post(`/services/${direction === 'pull' ? 'sftp-poller' : 'file-poller'}/in/start`, {});
      for (;;) {
        const { rows } = await db.query<{ n: number }>(
          "select count(*)::int as n from delivery where state = 'delivered'",
        );
        if (rows[0]!.n >= count) break;
        if (Date.now() - started > 600_000)
          throw new Error(`only ${rows[0]!.n} of ${count} delivered in 10 minutes`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const wall = (Date.now() - started) / 1000;
      const cpu = cpuMsOf(pier.child.pid!) - cpu0 + (postgresCpuMs(database) - pg0);
      const { rows } = await db.query<{ first: Date; last: Date }>(
        `select min(m.created_at) as first, max(d.finished_at) as last
           from message m join delivery d on d.message_id = m.id`,
      );
      const seconds = (rows[0]!.last.getTime() - rows[0]!.first.getTime()) / 1000;
      return {
        // Over the whole run, the polling waits included: what an operator waits for the set.
        files_per_s: Math.round((count / wall) * 10) / 10,
        seconds: Math.round(seconds * 100) / 100,
        wall_s: Math.round(wall * 100) / 100,
        cpu_ms_per_file: Math.round((cpu / count) * 100) / 100,
      };
    } finally {
      await db.end();
      await pier.stop();
      await rm(dir, { recursive: true, force: true });
      await rm(remote, { recursive: true, force: true });
    }
  });
}

/** OpenSSH's sftp client moving the same set in one batch: `get` (pull) or `put` (push). */
async function sftpRun(
  sshd: Sshd,
  direction: 'pull' | 'push',
  bytes: number,
  count: number,
): Promise<Figures> {
  const local = path.join(os.tmpdir(), `pier-bench-sftp-local-${randomBytes(3).toString('hex')}`);
  const remote = await sshd.directory(`bench-sftp-${direction}-${randomBytes(3).toString('hex')}`);
  try {
    await mkdir(local, { recursive: true });
    if (direction === 'pull') await fill(remote, count, bytes, sshd);
    else await fill(local, count, bytes);
    const batch = path.join(local, '..', `${path.basename(local)}.batch`);
    await writeFile(
      batch,
      direction === 'pull' ? `get ${remote}/* ${local}/\n` : `put ${local}/* ${remote}/\n`,
    );
    const started = Date.now();
    const { stderr } = await run('/usr/bin/time', [
      '-f',
      'cpu %U %S',
      'sftp',
      '-q',
      '-b',
      batch,
      ...sshd.clientArgs(),
      `${sshd.user}@${sshd.host}`,
    ]);
    const seconds = (Date.now() - started) / 1000;
    const m = /cpu ([\d.]+) ([\d.]+)/.exec(stderr);
    const cpuMs = m ? (Number(m[1]) + Number(m[2])) * 1000 : NaN;
    const moved = (await readdir(direction === 'pull' ? local : remote)).filter((n) =>
      n.endsWith('.dat'),
    ).length;
    if (moved !== count) throw new Error(`sftp moved ${moved} of ${count} files`);
    await rm(batch, { force: true });
    return {
      files_per_s: Math.round((count / seconds) * 10) / 10,
      seconds: Math.round(seconds * 100) / 100,
      wall_s: Math.round(seconds * 100) / 100,
      cpu_ms_per_file: Math.round((cpuMs / count) * 100) / 100,
    };
  } finally {
    await rm(local, { recursive: true, force: true });
    await rm(remote, { recursive: true, force: true });
  }
}

const teardowns: (() => Promise<void> | void)[] = [];
const sshd = await startSshd({ teardown: (fn) => teardowns.push(fn) });
try {
  const rsaBefore = await rsaSignsPerSecond();
  log(`openssl speed rsa2048: ${rsaBefore} private-key operations/s`);
  const results: Record<string, unknown>[] = [];
  for (const set of sets) {
    for (const direction of ['pull', 'push'] as const) {
      // Interleaved, so a change of the machine's load falls on both alike.
      for (const [tool, measure] of [
        ['pier', pierRun],
        ['sftp -b', sftpRun],
      ] as const) {
        log(`${tool} ${direction} ${set.count} × ${set.label} …`);
        const figures = await measure(sshd, direction, set.bytes, set.count);
        log(`  ${JSON.stringify(figures)}`);
        results.push({ tool, direction, size: set.label, files: set.count, ...figures });
      }
    }
  }
  const rsaAfter = await rsaSignsPerSecond();
  const rsaPerMs = (rsaBefore + rsaAfter) / 2 / 1000;
  for (const r of results)
    r.rsa_ops_per_file = Math.round((r.cpu_ms_per_file as number) * rsaPerMs * 10) / 10;
  console.log(
    JSON.stringify({
      machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}`,
      rsa2048_signs_per_s: { before: rsaBefore, after: rsaAfter },
      concurrency,
      results,
    }),
  );
} finally {
  for (const fn of teardowns.reverse()) await fn();
}
