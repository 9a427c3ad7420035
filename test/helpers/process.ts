/**
 * Real `pier serve` processes for crash and cluster tests: spawned with their own data
 * directory on a given database, reachable over loopback, killed with any signal.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Test } from 'tap';
import { createTestDatabase } from './database.js';
import { fileFlowRequests, tempDir, type FileFlowOptions } from './flow.js';
import { rowCounter } from './row-counts.js';
import { waitFor } from './wait.js';

const root = path.resolve(import.meta.dirname, '../..');

export interface PierProcess {
  child: ChildProcess;
  url: string;
  /** Every log line the process wrote so far, parsed. */
  logLines: { level: number; msg: string; time: number; [field: string]: unknown }[];
  /** JSON call under /api/v1 as the developer (the processes run the developer build). */
  call(method: string, url: string, body?: unknown): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * The environment of a test's `pier serve` on `databaseUrl` with its data in `dataDir`: loopback,
 * a port of the system's choosing, no metrics port, a fixed key, info lines; `env` added or overriding.
 */
export function serveEnv(
  databaseUrl: string,
  dataDir: string,
  env: Record<string, string> = {},
): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    DATABASE_URL: databaseUrl,
    PIER_DATA_DIR: dataDir,
    PIER_SECRET_KEY: 'cluster-test-key',
    HTTP_PORT: '0',
    METRICS_PORT: 'off',
    HTTP_HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ...env,
  };
}

export async function spawnPier(
  t: Pick<Test, 'teardown'>,
  options: {
    databaseUrl: string;
    dataDir: string;
    cwd: string;
    env?: Record<string, string>;
    /** The `pier` to run, as a program and its first arguments: the sources through tsx unless given. */
    command?: string[];
  },
): Promise<PierProcess> {
  const [program, ...first] = options.command ?? [process.execPath, path.join(root, 'bin/pier-sources.js')];
  const child = spawn(program!, [...first, 'serve', '--dev'], {
    cwd: options.cwd,
    env: serveEnv(options.databaseUrl, options.dataDir, options.env),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // A test that dies takes its servers with it.
  const orphanGuard = () => child.kill('SIGKILL');
  process.once('exit', orphanGuard);
  void exited.then(() => process.off('exit', orphanGuard));
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  const logLines: PierProcess['logLines'] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        logLines.push(entry as PierProcess['logLines'][number]);
        if (entry.msg === 'pier is serving' && entry.url) resolve(entry.url);
      } catch {
        // not a log line
      }
    });
    child.once('exit', (code) => reject(new Error(`pier serve exited with ${code} before serving`)));
  });
  return {
    child,
    url,
    logLines,
    async call(method, route, body) {
      const r = await fetch(`${url}/api/v1${route}`, {
        method,
        headers: method === 'GET' ? {} : { 'content-type': 'application/json' },
        ...(body !== undefined || method !== 'GET' ? { body: JSON.stringify(body ?? {}) } : {}),
      });
      const text = await r.text();
      return { status: r.status, body: text ? JSON.parse(text) : undefined };
    },
    async kill(signal) {
      child.kill(signal);
      await exited;
    },
  };
}

/**
 * `start()`: a pier on `databaseUrl` working in `dir`, its data in `dir`/data and `env` added; called
 * again after a kill or a stop, the next process takes over where the last one was.
 */
export function pierStarter(
  t: Pick<Test, 'teardown'>,
  databaseUrl: string,
  dir: string,
  env: Record<string, string> = {},
): () => Promise<PierProcess> {
  return () => spawnPier(t, { databaseUrl, dataDir: path.join(dir, 'data'), cwd: dir, env });
}

/**
 * A database and a working directory (named after `prefix`, with the inbox and outbox of `flowDirs`)
 * of the test's own, and `start()` for a pier on them that can be killed and started again (`env`
 * added); `count` counts its rows.
 */
export async function killablePier(t: Test, prefix: string, env: Record<string, string> = {}) {
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const { dir, inbox, outbox } = await flowDirs(t, prefix);
  return {
    dbUrl: db.url,
    dir,
    inbox,
    outbox,
    start: pierStarter(t, db.url, dir, env),
    count: rowCounter(db.url),
  };
}

/** A working directory of its own for `fileFlowOn`: its inbox (in/globex, made here) and outbox (out). */
export async function flowDirs(
  t: Test,
  prefix: string,
): Promise<{ dir: string; inbox: string; outbox: string }> {
  const dir = await tempDir(t, prefix);
  const inbox = path.join(dir, 'in', 'globex');
  await mkdir(inbox, { recursive: true });
  return { dir, inbox, outbox: path.join(dir, 'out') };
}

/** The process's exit: its code, and when it came (milliseconds since the epoch). */
export function exitOf(p: PierProcess): Promise<{ code: number | null; at: number }> {
  return new Promise((resolve) => p.child.once('exit', (code) => resolve({ code, at: Date.now() })));
}

/** SIGTERM, then the exit: its code and the seconds from the signal to the exit. */
export async function terminate(p: PierProcess): Promise<{ code: number | null; seconds: number }> {
  const exited = exitOf(p);
  const signalledAt = Date.now();
  p.child.kill('SIGTERM');
  const { code, at } = await exited;
  return { code, seconds: (at - signalledAt) / 1000 };
}

/** POST under /api/v1 of a process that must succeed. */
export async function mustOn(p: PierProcess, url: string, body: unknown = {}) {
  const r = await p.call('POST', url, body);
  if (r.status >= 300) throw new Error(`${url}: ${JSON.stringify(r.body)}`);
  return r;
}

/** Waits until the process runs the instance named (a configuration created enabled starts by itself). */
export function runningIn(p: PierProcess, name: string) {
  return statusIn(p, name, 'running');
}

/** Waits until the instance named has `status` in the process (`stopped` once a stop drained). */
export function statusIn(p: PierProcess, name: string, status: string) {
  return waitFor(
    async () => {
      const list = (await p.call('GET', '/services')).body.data as { name: string; status: string }[];
      return list.some((s) => s.name === name && s.status === status) || undefined;
    },
    `${name} ${status}`,
    30_000,
    50,
  );
}

type LogLine = PierProcess['logLines'][number];

/** Whether `line` says `msg` and its fields include `fields`. */
const says = (line: LogLine, msg: string, fields: Record<string, unknown>) =>
  line.msg === msg && Object.entries(fields).every(([k, v]) => line[k] === v);

/** Waits until the process has written a log line with `msg` whose fields include `fields`. */
export function loggedIn(
  p: PierProcess,
  msg: string,
  fields: Record<string, unknown> = {},
  timeoutMs = 60_000,
) {
  return waitFor(() => p.logLines.some((l) => says(l, msg, fields)) || undefined, msg, timeoutMs, 50);
}

/**
 * Per thread of an instance (1: its first, whose lines name no thread), the `field` of each log
 * line with `msg` whose fields include `fields`: which thread took which file or delivery.
 */
export function perThread(
  p: PierProcess,
  msg: string,
  fields: Record<string, unknown>,
  field: string,
): Map<number, unknown[]> {
  const by = new Map<number, unknown[]>();
  for (const line of p.logLines)
    if (says(line, msg, fields)) {
      const thread = typeof line.thread === 'number' ? line.thread : 1;
      const taken = by.get(thread) ?? [];
      taken.push(line[field]);
      by.set(thread, taken);
    }
  return by;
}

/** `threads` out of its range (0 to 256, whole) is refused for a new `type` instance with the field's message. */
export async function refusesThreadsOutOfRange(
  t: Test,
  p: PierProcess,
  type: string,
  body: Record<string, unknown>,
): Promise<void> {
  for (const [threads, message] of [
    [-1, 'Must be at least 0'],
    [257, 'Must be at most 256'],
    [1.5, 'Must be a whole number'],
  ] as const) {
    const r = await p.call('POST', `/plugins/configs?type=${type}`, { name: 'bad', ...body, threads });
    t.equal(r.status, 400, `threads ${threads}: refused`);
    t.match(r.body.error, { code: 'INVALID_INPUT', details: { threads: message } }, `threads ${threads}`);
  }
}

/**
 * The file flow the crash and outage tests run: organization acme, partner globex and the flow of
 * `fileFlowRequests` with the file writer `out` into `outbox` and the poller `in` looking every
 * second, created stopped so the test starts it once its files are there (unless `options` say).
 */
export async function fileFlowOn(
  p: PierProcess,
  dir: string,
  outbox: string,
  options: FileFlowOptions = {},
): Promise<void> {
  await flowOn(p, dir, {
    ...options,
    writer: { directory: outbox, ...options.writer },
    poller: { polling_interval: 1, enabled: false, ...options.poller },
  });
}

/** Organization acme and partner globex on a process. */
export async function partiesOn(p: PierProcess): Promise<void> {
  await mustOn(p, '/organizations', { name: 'acme' });
  await mustOn(p, '/partners', { name: 'globex' });
}

/** `partiesOn` and the flow of `fileFlowRequests` as `options` say, on a process. */
export async function flowOn(p: PierProcess, dir: string, options: FileFlowOptions): Promise<void> {
  await partiesOn(p);
  for (const { url, body } of fileFlowRequests(dir, options)) await mustOn(p, url, body);
}

/**
 * Organization bob (AS2 id BOB) signing with `bobCertificate`, and partner alice (ALICE) with
 * `aliceCertificate`, whose profile (`profile` adds to it) names an endpoint nothing listens on:
 * what the tests that receive from alice on a process set up.
 */
export async function bobFromAliceOn(
  p: PierProcess,
  bobCertificate: number,
  aliceCertificate: number,
  profile: object = {},
): Promise<void> {
  const bob = (await mustOn(p, '/organizations', { name: 'bob' })).body.data.id as number;
  await mustOn(p, '/as2/local-profiles', {
    local_organization_id: bob,
    as2id: 'BOB',
    signing_certificate_id: bobCertificate,
  });
  const alice = (await mustOn(p, '/partners', { name: 'alice' })).body.data.id as number;
  await mustOn(p, '/as2/remote-profiles', {
    business_partner_id: alice,
    as2id: 'ALICE',
    endpoint: 'http://127.0.0.1:9/as2',
    partner_certificate_id: aliceCertificate,
    signature_certificate_ids: [aliceCertificate],
    ...profile,
  });
}
