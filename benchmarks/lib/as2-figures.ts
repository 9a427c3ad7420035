/**
 * A measured case as figures. CPU is also given in RSA-2048 private-key operations (`openssl
 * speed rsa2048` on this machine around the case): cpu_ms / (1000 / signs per second), so that
 * runs on machines of different speeds compare.
 */
import type { OpenLoopResult } from './as2-load.js';
import type { Measured } from './as2-case.js';
import { backlogOf, inFlightOf, slope, type Progress } from './backlog.js';

const round = (n: number, digits = 1) => Number(n.toFixed(digits));
const quantile = (sorted: number[], q: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

/** The figures every case has: receipts, latency, CPU at the last receipt and at the end. */
function receiptAndCpu(m: Measured, rsaSignsPerS: number) {
  const ok = Math.max(m.state.ok, 1);
  const latencies = [...m.state.latencies].sort((a, b) => a - b);
  const rsaOps = (ms: number) => round((ms * rsaSignsPerS) / 1000 / ok, 2);
  const total = m.server_cpu_ms + m.postgres_cpu_ms;
  return {
    processed: m.state.ok,
    errors: m.state.sent - m.state.ok,
    ...(m.state.problems.size > 0 ? { problems: Object.fromEntries(m.state.problems) } : {}),
    p50_ms: round(quantile(latencies, 0.5)),
    p99_ms: round(quantile(latencies, 0.99)),
    // Up to the last receipt, as in the sections of earlier sessions.
    server_cpu_ms_per_msg: round(m.server_cpu_ms_at_last_receipt / ok, 2),
    // How many cores' worth of CPU the server used on average: above 1, more than one thread worked.
    server_cores_used: round(m.server_cpu_ms_at_last_receipt / 1000 / m.receiptSeconds, 2),
    postgres_cpu_ms_per_msg: round(m.postgres_cpu_ms_at_last_receipt / ok, 2),
    rsa_ops_per_msg_at_last_receipt: rsaOps(
      m.server_cpu_ms_at_last_receipt + m.postgres_cpu_ms_at_last_receipt,
    ),
    // Up to the end: the last document written (the delivery included), or the last receipt.
    cpu_per_msg: {
      until: m.delivery ? 'last document written' : 'last receipt',
      server_ms: round(m.server_cpu_ms / ok, 2),
      postgres_ms: round(m.postgres_cpu_ms / ok, 2),
      total_ms: round(total / ok, 2),
      server_rsa_ops: rsaOps(m.server_cpu_ms),
      postgres_rsa_ops: rsaOps(m.postgres_cpu_ms),
      total_rsa_ops: rsaOps(total),
    },
    openssl_rsa2048_sign_per_s: round(rsaSignsPerS, 0),
    machine_busy_pct: m.machine_busy_pct,
    ...m.db,
  };
}

/** Whole-second samples of the backlog (and of requests in flight). */
function series(m: Measured) {
  return {
    ...(m.delivery
      ? {
          backlog_max: Math.max(...m.samples.map(backlogOf)),
          backlog_series: m.samples.map(backlogOf),
        }
      : {}),
    in_flight_series: m.samples.map(inFlightOf),
  };
}

/** The closed loop: `concurrency` clients, each waiting for its receipt. */
export function closedLoopFigures(
  m: Measured,
  rsaSignsPerS: number,
  setting: { concurrency: number; connections: string; messages: number },
) {
  const d = m.delivery;
  return {
    ...setting,
    msg_per_s: round(m.state.ok / m.receiptSeconds),
    ...(d
      ? {
          unwritten_at_last_receipt: d.unwritten_at_last_receipt,
          unwritten_pct_at_last_receipt: round((100 * d.unwritten_at_last_receipt) / Math.max(m.state.ok, 1)),
          drain_after_last_receipt_s: round(d.drain_after_last_receipt_s, 2),
          last_document_s: round(d.seconds, 2),
          delivered_msg_per_s: round(m.state.ok / d.seconds),
        }
      : {}),
    ...receiptAndCpu(m, rsaSignsPerS),
    ...series(m),
  };
}

/**
 * Left to do at a moment: requests not answered and documents not written (without a writer,
 * requests not answered).
 */
const unfinishedOf = (x: Progress) => inFlightOf(x) + backlogOf(x);

/**
 * The open loop: `rate` requests a second for `durationS`. Bounded when what is left to do when
 * the load stops is less than one second of traffic, and did not grow over the duration's
 * second half by more than 1 % of the offered rate (least squares over the samples), no request
 * was held back at the cap, and every request was processed (a receiver over its in-flight limits
 * answers 503: the partner sends again later, so the offered rate was not kept up with).
 */
export function sustainedFigures(
  m: Measured,
  open: OpenLoopResult,
  rsaSignsPerS: number,
  setting: { offered_msg_per_s: number; duration_s: number; connections: string; cap: number },
) {
  const rate = setting.offered_msg_per_s;
  const loadSeconds = (m.loadEndedAt - m.startedAt) / 1000;
  const end = m.atLoadEnd;
  const secondHalf = m.samples
    .filter((x) => x.s >= loadSeconds / 2 && x.s <= loadSeconds)
    .map((x) => ({ x: x.s, y: unfinishedOf(x) }));
  const trend = slope(secondHalf);
  const unfinished = unfinishedOf(end);
  const d = m.delivery;
  const unbounded = [
    ...(unfinished >= rate ? ['unfinished at end ≥ 1 s of traffic'] : []),
    ...(trend > 0.01 * rate ? ['growing over the second half'] : []),
    ...(open.heldAtCap > 0 ? ['held at the cap'] : []),
    ...(m.state.ok < m.state.sent ? ['requests not processed'] : []),
  ];
  return {
    mode: 'sustained',
    ...setting,
    sent: m.state.sent,
    held_at_cap: open.heldAtCap,
    late_sends: open.late,
    max_outstanding: open.maxOutstanding,
    receipts_per_s: round(end.ok / loadSeconds),
    ...(d ? { delivered_per_s: round(end.written! / loadSeconds) } : {}),
    backlog_at_end: backlogOf(end),
    backlog_at_end_s: round(backlogOf(end) / rate, 2),
    in_flight_at_end: inFlightOf(end),
    unfinished_at_end_s: round(unfinished / rate, 2),
    second_half_trend_msg_per_s: round(trend, 2),
    bounded: unbounded.length === 0,
    ...(unbounded.length > 0 ? { unbounded_because: unbounded } : {}),
    // From the last request sent to the last receipt, and to the last document written.
    drain_receipts_s: round((m.startedAt + m.receiptSeconds * 1000 - m.loadEndedAt) / 1000, 2),
    ...(d
      ? {
          drain_s: round((m.endedAt - m.loadEndedAt) / 1000, 2),
          delivered_msg_per_s_end_to_end: round(m.state.ok / d.seconds),
        }
      : {}),
    ...receiptAndCpu(m, rsaSignsPerS),
    ...series(m),
  };
}
