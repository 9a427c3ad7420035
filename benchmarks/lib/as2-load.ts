/**
 * Two ways of offering AS2 requests to a receiver. Closed loop: `concurrency` clients, each
 * posting its next request when its last receipt is answered. Open loop: requests on a fixed
 * schedule (`rate` a second) whatever the answers, as independent partners send; at most `cap`
 * outstanding, so a stalled server cannot exhaust this process's sockets.
 */
import http from 'node:http';
import { postAs2, type As2Target, type PostResult } from './as2-post.js';
import type { BuiltRequest } from './as2-requests.js';

/** What a load has done so far; read by the backlog sampler while it runs. */
export interface LoadState {
  sent: number;
  answered: number;
  /** Receipts that said `processed` with the right MIC. */
  ok: number;
  /** Of the `ok` receipts, ms from the request's (scheduled) start to its receipt. */
  latencies: number[];
  problems: Map<string, number>;
}

export const newLoadState = (): LoadState => ({
  sent: 0,
  answered: 0,
  ok: 0,
  latencies: [],
  problems: new Map(),
});

export interface LoadTarget extends As2Target {
  requests: readonly BuiltRequest[];
  /** A fresh Message-ID for each request. */
  messageId(): string;
}

function agentOf(mode: string, maxSockets: number): http.Agent | false {
  return mode === 'keepalive' ? new http.Agent({ keepAlive: true, maxSockets }) : false;
}

function record(state: LoadState, r: PostResult, lateMs: number): void {
  state.answered++;
  if (r.ok) {
    state.ok++;
    state.latencies.push(r.ms + lateMs);
  } else state.problems.set(r.problem!, (state.problems.get(r.problem!) ?? 0) + 1);
}

// Every 20th receipt's signature is verified too.
const verifyEvery = 20;

export async function closedLoop(
  target: LoadTarget,
  state: LoadState,
  concurrency: number,
  mode: string,
  count: number,
): Promise<void> {
  const agent = agentOf(mode, concurrency);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) {
        state.sent++;
        const p = target.requests[i % target.requests.length]!;
        record(state, await postAs2(target, p, target.messageId(), agent, i % verifyEvery === 0), 0);
      }
    }),
  );
  if (agent) agent.destroy();
}

export interface OpenLoopResult {
  /** Requests held back because `cap` were outstanding. */
  heldAtCap: number;
  /** Requests sent more than 50 ms after their time (held at the cap, or this process was late). */
  late: number;
  maxOutstanding: number;
}

export async function openLoop(
  target: LoadTarget,
  state: LoadState,
  rate: number,
  durationS: number,
  mode: string,
  cap: number,
  /** Called when the last request is sent, before its receipt. */
  stopped: () => void,
): Promise<OpenLoopResult> {
  const agent = agentOf(mode, cap);
  const total = Math.round(rate * durationS);
  const pending = new Set<Promise<void>>();
  const result: OpenLoopResult = { heldAtCap: 0, late: 0, maxOutstanding: 0 };
  const heldAt = new Set<number>();
  const start = performance.now();
  let i = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      const due = Math.min(total, Math.floor(((now - start) * rate) / 1000) + 1);
      while (i < due) {
        if (pending.size >= cap) {
          if (!heldAt.has(i)) heldAt.add(i);
          break;
        }
        const k = i++;
        // Latency counts from when the request was due, so a late send is not hidden.
        const lateMs = Math.max(0, now - (start + (k * 1000) / rate));
        if (lateMs > 50) result.late++;
        state.sent++;
        const p = target.requests[k % target.requests.length]!;
        const done = postAs2(target, p, target.messageId(), agent, k % verifyEvery === 0).then((r) => {
          record(state, r, lateMs);
          pending.delete(done);
        });
        pending.add(done);
        result.maxOutstanding = Math.max(result.maxOutstanding, pending.size);
      }
      if (i >= total) {
        clearInterval(timer);
        resolve();
      }
    };
    const timer = setInterval(tick, 5);
    tick();
  });
  stopped();
  result.heldAtCap = heldAt.size;
  while (pending.size > 0) await Promise.all(pending);
  if (agent) agent.destroy();
  return result;
}
