/**
 * `pier bench self`: this install end to end on loopback, for "what can this machine do". A
 * pier of this install (self-server.ts) gets an AS2 receiver, organization `bench-receiver`
 * receiving from partner `bench-sender` with a key pair made for the run, a route to a
 * file-writer on a scratch directory; the messages are fired at it as `pier bench as2` fires
 * them, and the documents written are counted until every right receipt's document is there.
 * Everything (server, database, directories) is removed afterwards, whatever happened.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { makeKeyPair, selfSignedCertificate } from '../../pki/certificates/make-certificate.js';
import { toPem } from '../../pki/certificates/certificate-info.js';
import { createScratchDatabase } from '../../storage/scratch-database.js';
import { buildSet } from './message-set.js';
import { defaultContext } from './shape.js';
import { runBench, type Progress, type RunPlan, type RunResult } from './run.js';
import { freePort } from './free-port.js';
import { startSelfServer } from './self-server.js';
import { setUpReceivingSide } from './receiving-side.js';
import type { Connections } from './fire.js';

export interface SelfOptions {
  /** The install's database server (DATABASE_URL, or the embedded server's URL). */
  adminUrl: string;
  concurrencies: number[];
  connections: Connections[];
  messages: number;
  durationS: number | null;
  warmUp: number;
  size: number;
  timeoutS: number;
  /** Seconds without a new document before the count gives up. */
  drainS: number;
  userAgent: string;
  log: (line: string) => void;
  progress: Progress;
}

export interface SelfResult extends RunResult {
  delivered: { expected: number; written: number; seconds_after_last_receipt: number };
}

async function countFiles(dir: string): Promise<number> {
  try {
    return (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).length;
  } catch {
    return 0;
  }
}

async function api(
  base: string,
  token: string,
  url: string,
  body: unknown,
): Promise<Record<string, unknown>> {
  const r = await fetch(`${base}/api/v1${url}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (r.status >= 300)
    throw new Error(`Setting up the receiving pier failed: POST ${url}: ${r.status} ${await r.text()}`);
  return ((await r.json()) as { data: Record<string, unknown> }).data;
}

/**
 * Starts a service, again when its thread was not ready in time: on a machine busy enough, a
 * worker thread's first start (loading its modules) outlasts the supervisor's wait.
 */
async function startService(
  call: (url: string, body: unknown) => Promise<unknown>,
  type: string,
  name: string,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await call(`/services/${type}/${name}/start`, {});
      return;
    } catch (error) {
      if (attempt >= 3 || !/START_FAILED/.test((error as Error).message)) throw error;
    }
  }
}

export async function benchSelf(o: SelfOptions): Promise<SelfResult> {
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    o.log('making a key pair, a scratch database and a pier of this install…');
    const key = await makeKeyPair({ algorithm: 'rsa', bits: 2048 });
    const certificatePem = toPem(
      selfSignedCertificate({
        key,
        subject: { common_name: 'pier bench self' },
        notBefore: new Date(Date.now() - 60_000),
        validDays: 2,
      }),
    );
    const keyPem = key.export({ format: 'pem', type: 'pkcs8' }).toString();
    const db = await createScratchDatabase(o.adminUrl);
    cleanups.push(() => db.drop());
    const server = await startSelfServer(db.url);
    cleanups.unshift(() => server.stop());
    const work = await mkdtemp(path.join(os.tmpdir(), 'pier-bench-self-work-'));
    cleanups.push(() => rm(work, { recursive: true, force: true }));
    const out = path.join(work, 'out');

    const form = new FormData();
    form.append('certificate', new Blob([certificatePem]), 'certificate.pem');
    form.append('private_key', new Blob([keyPem]), 'key.pem');
    form.append('description', 'pier bench self');
    const up = await fetch(`${server.url}/api/v1/certificates`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'x-requested-with': 'XMLHttpRequest' },
      body: form,
    });
    if (up.status !== 201) throw new Error(`Storing the run's certificate failed: ${await up.text()}`);
    const cert = ((await up.json()) as { data: { id: number } }).data.id;
    const port = await freePort();
    const call = (url: string, body: unknown) => api(server.url, server.token, url, body);
    await setUpReceivingSide(
      { post: call, start: (type, name) => startService(call, type, name) },
      {
        port,
        certificateId: cert,
        names: {
          receiver: 'bench-in',
          organization: 'bench-receiver',
          organizationAs2id: 'BENCH-RECEIVER',
          partner: 'bench-sender',
          partnerAs2id: 'BENCH-SENDER',
          writer: 'bench-out',
        },
        profile: { sign: true, encrypt: true, compress: true },
        writerDirectory: out,
      },
    );

    const url = `http://127.0.0.1:${port}/as2`;
    const context = defaultContext({
      url,
      from: 'BENCH-SENDER',
      to: 'BENCH-RECEIVER',
      certificatePem,
      keyPem,
      partnerPem: certificatePem,
    });
    o.log(`building ${o.messages} messages…`);
    const set = await buildSet(path.join(work, 'set'), context, {
      count: o.messages,
      size: o.size,
      userAgent: o.userAgent,
    });
    const plan: RunPlan = {
      endpoints: [{ name: 'a', url, serverPid: server.pid }],
      context,
      set,
      concurrencies: o.concurrencies,
      connections: o.connections,
      messages: o.messages,
      durationS: o.durationS,
      warmUp: o.warmUp,
      rounds: 1,
      timeoutS: o.timeoutS,
      receiptUrl: null,
      // Each case ends with its last document written, as benchmarks/as2-receive's cases do.
      deliveries: { count: () => countFiles(out), drainS: o.drainS },
    };
    const result = await runBench(plan, o.progress);
    const lastReceipt = performance.now();
    const expected =
      result.cases.reduce((n, c) => n + c.ok, 0) +
      result.warm_up.reduce((n, w) => n + w.sent - Object.values(w.failures).reduce((a, b) => a + b, 0), 0);
    let written = await countFiles(out);
    let lastChange = performance.now();
    while (written < expected && performance.now() - lastChange < o.drainS * 1000) {
      await new Promise((r) => setTimeout(r, 100));
      const now = await countFiles(out);
      if (now !== written) lastChange = performance.now();
      written = now;
    }
    return {
      ...result,
      delivered: {
        expected,
        written,
        seconds_after_last_receipt: Math.round((performance.now() - lastReceipt) / 10) / 100,
      },
      passed: result.passed && written >= expected,
    };
  } finally {
    for (const cleanup of cleanups)
      await cleanup().catch((error: unknown) => o.log(`cleaning up: ${String(error)}`));
  }
}
