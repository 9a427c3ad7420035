/**
 * Group commit: requests that arrive while a batch is being written wait and go together
 * in the next one. A lone request goes at once, so latency is one transaction when the
 * system is quiet and throughput grows with load. A failing batch is retried item by
 * item, so one bad request cannot fail the others.
 */

interface Waiting<I, O> {
  item: I;
  resolve(out: O): void;
  reject(error: unknown): void;
}

export class Batcher<I, O> {
  #queue: Waiting<I, O>[] = [];
  #running = false;
  #idle: (() => void)[] = [];

  constructor(
    /** Writes a batch; answers one output per item, in order. */
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly maxBatch = 500,
  ) {}

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

  async #drain(): Promise<void> {
    this.#running = true;
    // Let requests made in the same tick join the first batch.
    await new Promise((r) => setImmediate(r));
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.maxBatch);
      try {
        const outs = await this.run(batch.map((w) => w.item));
        batch.forEach((w, i) => w.resolve(outs[i]!));
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
