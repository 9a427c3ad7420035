/**
 * A benchmark run: a warm-up, then for each concurrency and connection mode one case per
 * endpoint, with `--compare` the two endpoints in interleaved pairs (A then B, `rounds` times),
 * the same messages to both. Around the run this machine's RSA-2048 speed is measured, so the
 * server's CPU per message (read from /proc when its process is known) is also told in RSA-2048
 * private-key operations.
 */
import type { As2OutboundContext } from '../../protocol/as2-protocol.js';
import { AsyncReceipts } from './async-receipts.js';
import { cpuMsOf, rsa2048Speed, type RsaSpeed } from './cpu.js';
import { fire, type Connections } from './fire.js';
import {
  failuresByKind,
  latencyFigures,
  latencyHistogram,
  perSecond,
  type LatencyFigures,
  type Shot,
} from './figures.js';
import type { MessageSet } from './message-set.js';

export interface Endpoint {
  /** `a`, the endpoint; `b`, the one `--compare` names. */
  name: 'a' | 'b';
  url: string;
  serverPid: number | null;
}

export interface RunPlan {
  endpoints: Endpoint[];
  context: As2OutboundContext;
  set: MessageSet;
  concurrencies: number[];
  connections: Connections[];
  /** Messages per case (at most), and seconds per case (at most; null: no time limit). */
  messages: number;
  durationS: number | null;
  warmUp: number;
  rounds: number;
  timeoutS: number;
  /** Where asynchronous receipts come back (their listener's URL), when they are asked for. */
  receiptUrl: string | null;
  /**
   * When the documents delivered at endpoint A can be counted (`pier bench self` counts its
   * target's files): a case then ends when its last document is delivered, not when its last
   * receipt is in, and its throughput and CPU are told up to then as well.
   */
  deliveries?: Deliveries;
}

export interface Deliveries {
  /** Documents delivered so far. */
  count(): Promise<number>;
  /** Seconds without a new document before a case stops waiting for the rest. */
  drainS: number;
}

/** A case's messages until their documents were delivered: what the user of the receiver gets. */
export interface DeliveredFigures {
  /** Right receipts of the case whose documents were expected, and how many were delivered. */
  expected: number;
  written: number;
  /** From the case's first request to its last document. */
  seconds: number;
  msg_per_s: number;
  seconds_after_last_receipt: number;
}

export interface CaseResult {
  endpoint: 'a' | 'b';
  url: string;
  concurrency: number;
  connections: Connections;
  round: number;
  sent: number;
  ok: number;
  failed: number;
  failures: Record<string, number>;
  seconds: number;
  msg_per_s: number;
  latency_ms: LatencyFigures;
  /**
   * null without the server's process. Up to the last document delivered where deliveries are
   * counted (`until: 'delivered'`), else up to the last receipt.
   */
  cpu: null | { server_ms_per_msg: number; rsa2048_ops_per_msg: number; until: 'receipt' | 'delivered' };
  /** null where deliveries are not counted (an endpoint elsewhere). */
  delivered: DeliveredFigures | null;
  /** Right receipts in each second. */
  per_second: number[];
  latency_histogram: { from: number; to: number; count: number }[];
}

export interface Comparison {
  concurrency: number;
  connections: Connections;
  /** B's msg/s over A's, for each pair in order. */
  pair_ratios: number[];
  /** The median of the pairs' ratios. */
  ratio: number;
}

export interface RunResult {
  tool: 'pier bench as2';
  started_at: string;
  set: {
    dir: string;
    messages: number;
    size_bytes: number;
    document: string;
    shape: Record<string, unknown>;
  };
  plan: {
    concurrency: number[];
    connections: Connections[];
    messages_per_case: number;
    duration_s: number | null;
    warm_up: number;
    rounds: number;
  };
  endpoints: Endpoint[];
  rsa2048_ops_per_s: { before: number; after: number; source: RsaSpeed['source'] };
  warm_up: { endpoint: 'a' | 'b'; sent: number; failures: Record<string, number> }[];
  cases: CaseResult[];
  comparisons: Comparison[];
  /** Every receipt right, in the warm-up too. */
  passed: boolean;
}

export interface Progress {
  /** A case starts: what it is, and how many messages it will send at most. */
  begin(label: string, total: number): void;
  step(done: number, failed: number): void;
  end(result: CaseResult | null): void;
}

const round = (n: number, places = 2) => Math.round(n * 10 ** places) / 10 ** places;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The order the cases of a plan run in: per concurrency and mode, `rounds` pairs of A then B. */
export function caseOrder(plan: Pick<RunPlan, 'endpoints' | 'concurrencies' | 'connections' | 'rounds'>) {
  const order: { endpoint: Endpoint; concurrency: number; connections: Connections; round: number }[] = [];
  for (const concurrency of plan.concurrencies)
    for (const connections of plan.connections)
      for (let r = 1; r <= plan.rounds; r++)
        for (const endpoint of plan.endpoints) order.push({ endpoint, concurrency, connections, round: r });
  return order;
}

/**
 * Waits until `expected` documents are delivered, polling every 100 ms (as benchmarks/as2-receive
 * does), or until none has come for `drainS` seconds; resolves with the count and when it got there.
 */
async function untilDelivered(
  deliveries: Deliveries,
  expected: number,
): Promise<{ written: number; at: number }> {
  let written = await deliveries.count();
  let at = performance.now();
  let lastChange = at;
  while (written < expected && performance.now() - lastChange < deliveries.drainS * 1000) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = await deliveries.count();
    if (now !== written) lastChange = at = performance.now();
    written = now;
  }
  return { written, at };
}

export async function runBench(plan: RunPlan, progress: Progress): Promise<RunResult> {
  const startedAt = new Date().toISOString();
  const tag = Date.now().toString(36);
  let firing = 0;
  const receipts =
    plan.receiptUrl === null ? null : new AsyncReceipts(plan.context.verification, plan.timeoutS * 1000);
  if (receipts && plan.receiptUrl) await receipts.listen(plan.receiptUrl);
  const base = {
    context: plan.context,
    set: plan.set,
    timeoutMs: plan.timeoutS * 1000,
    receipts,
  };
  try {
    const warmUp: RunResult['warm_up'] = [];
    let offset = 0;
    if (plan.warmUp > 0)
      for (const endpoint of plan.endpoints) {
        const concurrency = Math.max(...plan.concurrencies);
        progress.begin(`warm-up ${endpoint.name}`, plan.warmUp);
        const w = await fire({
          ...base,
          url: endpoint.url,
          concurrency,
          connections: 'keepalive',
          count: plan.warmUp,
          durationMs: null,
          firingTag: `${tag}w${++firing}`,
          firstIndex: 0,
          onShot: (shots) => progress.step(shots.length, shots.filter((s) => s.failure !== null).length),
        });
        progress.end(null);
        warmUp.push({ endpoint: endpoint.name, sent: w.shots.length, failures: failuresByKind(w.shots) });
      }
    /** Documents expected at A so far: the warm-up's, delivered before the first case starts. */
    let expectedAtA = 0;
    if (plan.deliveries) {
      const a = warmUp.find((w) => w.endpoint === 'a');
      expectedAtA = a ? a.sent - Object.values(a.failures).reduce((n, k) => n + k, 0) : 0;
      await untilDelivered(plan.deliveries, expectedAtA);
    }
    offset = plan.warmUp;
    const rsaBefore = rsa2048Speed();
    const timed: {
      shots: Shot[];
      seconds: number;
      cpuMs: number | null;
      delivered: DeliveredFigures | null;
      at: ReturnType<typeof caseOrder>[number];
    }[] = [];
    for (const at of caseOrder(plan)) {
      progress.begin(
        `${at.endpoint.name === 'b' ? 'compare ' : ''}${at.connections} ×${at.concurrency}${plan.rounds > 1 ? ` round ${at.round}` : ''}`,
        plan.messages,
      );
      const cpuBefore = at.endpoint.serverPid === null ? null : cpuMsOf(at.endpoint.serverPid);
      const caseStart = performance.now();
      const f = await fire({
        ...base,
        url: at.endpoint.url,
        concurrency: at.concurrency,
        connections: at.connections,
        count: plan.messages,
        durationMs: plan.durationS === null ? null : plan.durationS * 1000,
        firingTag: `${tag}c${++firing}`,
        // The A and B of a pair send the same messages.
        firstIndex: offset,
        onShot: (shots) => progress.step(shots.length, shots.filter((s) => s.failure !== null).length),
      });
      let delivered: DeliveredFigures | null = null;
      if (plan.deliveries && at.endpoint.name === 'a') {
        const lastReceipt = caseStart + f.seconds * 1000;
        const ok = f.shots.filter((shot) => shot.failure === null).length;
        expectedAtA += ok;
        const { written, at: lastDocument } = await untilDelivered(plan.deliveries, expectedAtA);
        const seconds = (Math.max(lastDocument, lastReceipt) - caseStart) / 1000;
        delivered = {
          expected: ok,
          written: ok - Math.max(0, expectedAtA - written),
          seconds: round(seconds, 3),
          msg_per_s: seconds > 0 ? round(ok / seconds, 1) : 0,
          seconds_after_last_receipt: round(Math.max(0, lastDocument - lastReceipt) / 1000, 3),
        };
      }
      const cpuAfter = at.endpoint.serverPid === null ? null : cpuMsOf(at.endpoint.serverPid);
      timed.push({
        ...f,
        cpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
        delivered,
        at,
      });
      progress.end(null);
      if (at.endpoint === plan.endpoints.at(-1)) offset += plan.messages;
    }
    const rsaAfter = rsa2048Speed();
    const rsa = (rsaBefore.ops_per_s + rsaAfter.ops_per_s) / 2;
    const cases: CaseResult[] = timed.map(({ shots, seconds, cpuMs, delivered, at }) => {
      const ok = shots.filter((s) => s.failure === null).length;
      return {
        endpoint: at.endpoint.name,
        url: at.endpoint.url,
        concurrency: at.concurrency,
        connections: at.connections,
        round: at.round,
        sent: shots.length,
        ok,
        failed: shots.length - ok,
        failures: failuresByKind(shots),
        seconds: round(seconds, 3),
        msg_per_s: seconds > 0 ? round(ok / seconds, 1) : 0,
        latency_ms: latencyFigures(shots),
        cpu:
          cpuMs === null || ok === 0
            ? null
            : {
                server_ms_per_msg: round(cpuMs / ok, 3),
                rsa2048_ops_per_msg: round(((cpuMs / ok) * rsa) / 1000, 1),
                until: delivered ? 'delivered' : 'receipt',
              },
        delivered,
        per_second: perSecond(shots),
        latency_histogram: latencyHistogram(shots),
      };
    });
    const comparisons: Comparison[] = [];
    if (plan.endpoints.length === 2)
      for (const concurrency of plan.concurrencies)
        for (const connections of plan.connections) {
          const these = cases.filter((c) => c.concurrency === concurrency && c.connections === connections);
          const ratios: number[] = [];
          for (let r = 1; r <= plan.rounds; r++) {
            const a = these.find((c) => c.round === r && c.endpoint === 'a')!;
            const b = these.find((c) => c.round === r && c.endpoint === 'b')!;
            ratios.push(a.msg_per_s > 0 ? round(b.msg_per_s / a.msg_per_s, 3) : 0);
          }
          comparisons.push({
            concurrency,
            connections,
            pair_ratios: ratios,
            ratio: round(median(ratios), 3),
          });
        }
    const m = plan.set.manifest;
    return {
      tool: 'pier bench as2',
      started_at: startedAt,
      set: {
        dir: plan.set.dir,
        messages: m.messages.length,
        size_bytes: m.size_bytes,
        document: m.document,
        shape: {
          as2_from: m.as2_from,
          as2_to: m.as2_to,
          signing_algorithm: m.signing_algorithm,
          encryption_algorithm: m.encryption_algorithm,
          compression: m.compression,
          receipts: m.receipts,
        },
      },
      plan: {
        concurrency: plan.concurrencies,
        connections: plan.connections,
        messages_per_case: plan.messages,
        duration_s: plan.durationS,
        warm_up: plan.warmUp,
        rounds: plan.rounds,
      },
      endpoints: plan.endpoints,
      rsa2048_ops_per_s: { before: rsaBefore.ops_per_s, after: rsaAfter.ops_per_s, source: rsaBefore.source },
      warm_up: warmUp,
      cases,
      comparisons,
      passed:
        cases.every(
          (c) =>
            c.failed === 0 &&
            c.sent > 0 &&
            (c.delivered === null || c.delivered.written === c.delivered.expected),
        ) && warmUp.every((w) => Object.keys(w.failures).length === 0),
    };
  } finally {
    await receipts?.close();
  }
}
