/**
 * One measured case of as2-receive: a load runs while the server's and PostgreSQL's CPU, the
 * machine and the writer's directory are watched, and the case ends only when every document
 * whose receipt said `processed` is written (or fails, naming how many are missing). CPU is
 * read twice: at the last receipt (the receiver's figures, comparable with earlier sessions) and
 * at the last document written (what the operator gets, the delivery included).
 */
import { recordBacklog, seriesLine, type Progress, type Sample } from './backlog.js';
import { cpuMsOf, machineTicks, watchPostgresCpu } from './cpu.js';
import type { LoadState } from './as2-load.js';
import { dbCountersPerMessage, type DbCounterReader } from './pg-counters.js';
import { threadShares, threadSnapshot, type ThreadShare } from './thread-cpu.js';
import { watchWrittenFiles } from './written-files.js';

export interface CaseWatch {
  serverPid: number;
  /** The server's database, whose backends' CPU counts as the server's; null when it has none. */
  databaseName: string | null;
  counters: DbCounterReader | null;
  /** The file writer's directory; null when no writer delivers. */
  writerDirectory: string | null;
  /** A case fails when no document has been written for this long. */
  stallMs: number;
}

export interface Measured {
  state: LoadState;
  /** From the case's start to its last receipt. */
  receiptSeconds: number;
  server_cpu_ms_at_last_receipt: number;
  postgres_cpu_ms_at_last_receipt: number;
  delivery: {
    unwritten_at_last_receipt: number;
    /** From the case's start to its last document written. */
    seconds: number;
    /** From the last receipt to the last document written. */
    drain_after_last_receipt_s: number;
  } | null;
  /** CPU up to the case's end: the last document written, or the last receipt without a writer. */
  server_cpu_ms: number;
  postgres_cpu_ms: number;
  machine_busy_pct: number;
  /** Each thread of the server, busiest first, with its share of the server's CPU over the case. */
  threads: ThreadShare[];
  /** When the load stopped sending (the open loop's last send; the last receipt else). */
  atLoadEnd: Progress;
  db: ReturnType<typeof dbCountersPerMessage> | null;
  samples: Sample[];
  /** performance.now() of the case's start, its load's end and its end. */
  startedAt: number;
  loadEndedAt: number;
  endedAt: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `load`, which resolves at its last receipt and calls `stopped` when it sends no more
 * (an open loop, before its last receipts); a load that does not call it stopped at its last receipt.
 */
export async function measureCase(
  watch: CaseWatch,
  state: LoadState,
  load: (stopped: () => void) => Promise<unknown>,
): Promise<Measured> {
  const before = await watch.counters?.read();
  const files = watch.writerDirectory === null ? null : await watchWrittenFiles(watch.writerDirectory);
  const serverCpu0 = cpuMsOf(watch.serverPid);
  const threads0 = threadSnapshot(watch.serverPid);
  const pgCpu =
    watch.databaseName === null ? { read: () => 0, stop: () => 0 } : watchPostgresCpu(watch.databaseName);
  const machine0 = machineTicks();
  const startedAt = performance.now();
  const progressNow = (): Progress => ({
    sent: state.sent,
    answered: state.answered,
    ok: state.ok,
    written: files?.written() ?? null,
  });
  const sampler = recordBacklog(progressNow);
  // Set by the load's `stopped` call (an object, since a callback sets it).
  const stop: { at: number | null; progress: Progress | null } = { at: null, progress: null };
  try {
    await load(() => {
      stop.at = performance.now();
      stop.progress = progressNow();
    });
    const lastReceiptAt = performance.now();
    const serverAtReceipt = cpuMsOf(watch.serverPid) - serverCpu0;
    const pgAtReceipt = pgCpu.read();
    const atReceipt = progressNow();
    if (files) await files.waitFor(state.ok, watch.stallMs);
    const endedAt = files ? Math.max(files.lastChangeAt(), lastReceiptAt) : lastReceiptAt;
    const serverCpu = cpuMsOf(watch.serverPid) - serverCpu0;
    const threads = threadShares(threads0, threadSnapshot(watch.serverPid));
    const pgCpuMs = pgCpu.stop();
    const machine1 = machineTicks();
    const samples = sampler.stop();
    // Backends report their counters to pg_stat_database at most once a second.
    if (watch.counters) await sleep(1500);
    const after = await watch.counters?.read();
    return {
      state,
      receiptSeconds: (lastReceiptAt - startedAt) / 1000,
      server_cpu_ms_at_last_receipt: serverAtReceipt,
      postgres_cpu_ms_at_last_receipt: pgAtReceipt,
      delivery: files
        ? {
            unwritten_at_last_receipt: state.ok - atReceipt.written!,
            seconds: (endedAt - startedAt) / 1000,
            drain_after_last_receipt_s: (endedAt - lastReceiptAt) / 1000,
          }
        : null,
      server_cpu_ms: serverCpu,
      postgres_cpu_ms: pgCpuMs,
      atLoadEnd: stop.progress ?? atReceipt,
      machine_busy_pct: Math.round(
        (100 * (machine1.busy - machine0.busy)) / (machine1.total - machine0.total),
      ),
      threads,
      db: before && after ? dbCountersPerMessage(before, after, state.ok) : null,
      samples,
      startedAt,
      loadEndedAt: stop.at ?? lastReceiptAt,
      endedAt,
    };
  } catch (error) {
    process.stderr.write(`backlog (in flight) per second: ${seriesLine(sampler.stop())}\n`);
    pgCpu.stop();
    throw error;
  } finally {
    await files?.stop();
  }
}
