/**
 * How many deliveries a target holds at once (claimed and not yet recorded), adapted to its
 * backlog. `max_concurrent_deliveries` bounds the deliveries worked on at the same time, not
 * the ones claimed: a writer that claimed one delivery at a time paid a claim and a result
 * (two trips to PostgreSQL) per file, and with its default of one it wrote 170–200 files/s
 * while the receiver answered 300–500 receipts/s, so the backlog grew for as long as the load
 * lasted. A target with a backlog now claims ahead (the window doubles while claims come back
 * full) and works through what it holds at its own concurrency; once the backlog is gone
 * (claims come back short) the window shrinks back to the concurrency.
 */
import { limits } from '../../limits/limits.js';

export class ClaimWindow {
  #size: number;

  constructor(private readonly concurrency: number) {
    this.#size = Math.min(Math.max(concurrency, 1), Math.max(limits.maxClaimWindow, concurrency));
  }

  get size(): number {
    return this.#size;
  }

  /** A claim asked for `asked` and got `got`. */
  claimed(asked: number, got: number): void {
    const ceiling = Math.max(limits.maxClaimWindow, this.concurrency);
    if (got >= asked) this.#size = Math.min(ceiling, this.#size * 2);
    else this.#size = Math.max(this.concurrency, Math.floor(this.#size / 2));
  }
}
