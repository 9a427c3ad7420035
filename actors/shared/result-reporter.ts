/**
 * Records a target's delivery results: held back a little to go together (`lingerMs`), and
 * kept through a database outage until they are recorded.
 *
 * Each report is a statement in PostgreSQL, and one for a handful of results costs little
 * more than one for one (benchmarks/history/2026-11-23-results-recorded-together.md). A
 * held result does not hold a delivery slot: the next delivery starts while it waits, so
 * holding results back never slows a target down.
 *
 * A report that fails (PostgreSQL restarting, say) is not dropped: the delivery happened, and
 * a result that never arrives left its message `InProgress` until the process was restarted.
 * The results are kept and reported again, with a growing wait, until the database takes them;
 * the reporter tells the core when recording starts failing and when it works again (once
 * each, database-outage.ts), and the process logs the outage once. Nobody
 * waits on a result but the operator reading the message's status, and a result lost with the
 * process (kill -9) only repeats the delivery, which the targets take as done.
 *
 * A report may carry the target's next claim (`claimAlong`, asked of the delivery loop as the
 * report goes): a target whose slots are all busy claims with the result that frees one,
 * in one statement, instead of a claim of its own and a report (a statement and a commit
 * each).
 */
import type { ClaimedDelivery, DeliveryOutcome } from '../../protocol/core-protocol.js';
import { tellDatabase, type OutageTeller } from './database-outage.js';
import type { Claimed, DeliveryPort } from './delivery-port.js';
import { limits } from '../../limits/limits.js';

interface Result {
  delivery: ClaimedDelivery;
  outcome: DeliveryOutcome;
}

/** What the reporter asks of and tells its delivery loop. */
export interface ReporterHooks {
  /** Results were recorded (or found no longer current): their places are free. */
  recorded(deliveries: ClaimedDelivery[]): void;
  /** How many deliveries to claim along with a report of `freeing` results (0: none). */
  claimAlong(freeing: number): number;
  /** A claim along was answered: `asked` deliveries asked for, what came. */
  claimedAlong(asked: number, claimed: Claimed): void;
  /** A claim along failed with its report (it may have committed, its answer lost). */
  claimAlongFailed(error: unknown): void;
}

export class ResultReporter {
  #held: Result[] = [];
  #timer: NodeJS.Timeout | undefined;
  /** Results whose report failed, waiting for the next attempt. */
  #failed: Result[] = [];
  #retryMs = limits.resultFirstRetryMs;
  #retryTimer: NodeJS.Timeout | undefined;
  /** Recording failed and has not worked since: logged once, not per attempt. */
  #failing = false;
  #closed = false;
  #reporting = 0;
  #settled: (() => void)[] = [];

  constructor(
    private readonly core: Pick<DeliveryPort, 'record'> & OutageTeller,
    private readonly hooks: ReporterHooks,
    private readonly lingerMs = limits.resultLingerMs,
  ) {}

  /** Results held, being reported or waiting to be reported again. */
  private get unrecorded(): number {
    return this.#held.length + this.#failed.length + this.#reporting;
  }

  /** Holds a result; `soon` when nothing else could join it, so waiting would only delay it. */
  add(delivery: ClaimedDelivery, outcome: DeliveryOutcome, soon: boolean): void {
    this.#held.push({ delivery, outcome });
    if (soon || this.#held.length >= limits.maxResultsPerReport) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), this.lingerMs);
  }

  /** Reports the held results now, in one synchronous run (the core client sends one request). */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#held.splice(0);
    if (batch.length > 0) this.#report(batch, this.#closed ? 0 : this.hooks.claimAlong(batch.length));
  }

  /** Records `batch` in one report, with a claim of up to `claimLimit` along. */
  #report(batch: Result[], claimLimit = 0): void {
    this.#reporting += batch.length;
    this.core.record(batch, claimLimit).then(
      ({ claimed }) => {
        this.#reporting -= batch.length;
        this.#recovered();
        this.hooks.recorded(batch.map((r) => r.delivery));
        if (claimLimit > 0) this.hooks.claimedAlong(claimLimit, claimed ?? { deliveries: [], more: false });
        this.#maybeSettled();
      },
      (error: unknown) => {
        this.#reporting -= batch.length;
        this.#keep(batch, error);
        if (claimLimit > 0) this.hooks.claimAlongFailed(error);
        this.#maybeSettled();
      },
    );
  }

  #keep(failed: Result[], error: unknown): void {
    if (!this.#failing) {
      this.#failing = true;
      tellDatabase(this.core, false, 'recording delivery results', error);
    }
    this.#failed.push(...failed);
    if (this.#closed) return;
    this.#retryTimer ??= setTimeout(() => {
      this.#retryTimer = undefined;
      const again = this.#failed.splice(0);
      if (again.length > 0) this.#report(again);
    }, this.#retryMs).unref();
    this.#retryMs = Math.min(this.#retryMs * 2, limits.maxResultRetryMs);
  }

  #recovered(): void {
    if (!this.#failing) return;
    this.#failing = false;
    this.#retryMs = limits.resultFirstRetryMs;
    tellDatabase(this.core, true, 'recording delivery results');
  }

  #maybeSettled(): void {
    if (this.unrecorded === 0) for (const resolve of this.#settled.splice(0)) resolve();
  }

  /**
   * Reports what is held and tries once more what failed; resolves when every result is
   * recorded or, for results the database still refuses, after `graceMs` (the supervisor then
   * gives their deliveries back, or another process's sweep does).
   */
  async close(graceMs: number): Promise<void> {
    this.#closed = true;
    this.flush();
    if (this.#failed.length > 0) {
      clearTimeout(this.#retryTimer);
      this.#retryTimer = undefined;
      this.#report(this.#failed.splice(0));
    }
    if (this.unrecorded === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.#settled.push(resolve)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
    ]);
    clearTimeout(timer);
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
  }
}
