/**
 * Lifecycle work takes turns per instance: a start, stop or follow of one instance waits only
 * for earlier work on that same instance, so an instance whose start takes its whole deadline
 * holds up no other instance and no other API answer.
 */
export class Turns {
  /** The end of the queue of each instance with work queued or under way. */
  readonly #tails = new Map<string, Promise<unknown>>();

  /** Runs `work` once the earlier work of `key` has settled, whatever its outcome. */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const next = (this.#tails.get(key) ?? Promise.resolve()).then(work, work);
    const tail = next.catch(() => {});
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return next;
  }

  /** Resolves once no work is queued or under way, including work queued while waiting. */
  async settled(): Promise<void> {
    while (this.#tails.size > 0) await Promise.all(this.#tails.values());
  }
}
