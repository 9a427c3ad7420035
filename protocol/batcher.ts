/**
 * Group commit without a timer: requests that arrive while a batch is being written wait and
 * go together in the next one. A lone request goes at once (only requests made in the same
 * synchronous run join it; no timer, no turn of the event loop), so latency is one
 * transaction when the system is quiet and throughput grows with load. A failing batch is
 * retried item by item, so one bad request cannot fail the others.
 */

interface Waiting<I, O> {
  item: I;
  resolve(out: O): void;
  reject(error: unknown): void;
}

export interface BatchLimits<I> {
  /** Most items in one batch. */
  maxItems?: number;
  /** What an item weighs (say, the payload bytes it carries); with maxWeight. */
  weigh?: (item: I) => number;
  /** Most weight in one batch; an item heavier than this still goes, alone. */
  maxWeight?: number;
}

export class Batcher<I, O> {
  #queue: Waiting<I, O>[] = [];
  #running = false;
  #idle: (() => void)[] = [];
  readonly #maxItems: number;
  readonly #weigh: ((item: I) => number) | undefined;
  readonly #maxWeight: number;

  constructor(
    /** Writes a batch; answers one output per item, in order. */
    private readonly run: (items: I[]) => Promise<O[]>,
    limits: BatchLimits<I> = {},
  ) {
    this.#maxItems = limits.maxItems ?? 500;
    this.#weigh = limits.weigh;
    this.#maxWeight = limits.maxWeight ?? Infinity;
  }

  submit(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (!this.#running) void this.#drain();
    });
  }

  get pending(): number {
    return this.#queue.length;
  }

  /** Resolves when nothing is queued or running. */
  idle(): Promise<void> {
    if (!this.#running && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** How many queued items the next batch takes: at least one, within both limits. */
  #taken(): number {
    const most = Math.min(this.#maxItems, this.#queue.length);
    if (!this.#weigh) return most;
    let weight = 0;
    for (let n = 0; n < most; n++) {
      weight += this.#weigh(this.#queue[n]!.item);
      if (weight > this.#maxWeight) return Math.max(n, 1);
    }
    return most;
  }

  async #drain(): Promise<void> {
    this.#running = true;
    // Requests made in the same synchronous run (an actor's batch submitted item by item)
    // join the first batch; waiting for the event loop's next turn instead cost a lone
    // request the time every other ready callback took, milliseconds under load.
    await Promise.resolve();
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#taken());
      try {
        // Loops, not callbacks made per batch: V8 compiles such a callback again after each
        // collection (docs/decisions/no-callbacks-made-per-call-on-the-message-path.md).
        const items: I[] = [];
        for (const w of batch) items.push(w.item);
        const outs = await this.run(items);
        for (let i = 0; i < batch.length; i++) batch[i]!.resolve(outs[i]!);
      } catch (error) {
        if (batch.length === 1) batch[0]!.reject(error);
        else {
          for (const w of batch) {
            await this.run([w.item]).then(
              (outs) => w.resolve(outs[0]!),
              (e: unknown) => w.reject(e),
            );
          }
        }
      }
    }
    this.#running = false;
    for (const resolve of this.#idle.splice(0)) resolve();
  }
}
