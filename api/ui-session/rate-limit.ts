/**
 * Failed password sign-ins are limited per user name and per client address: after 5 failures
 * for a name (20 for an address) within 15 minutes, further attempts are refused without
 * checking the password until the window has passed. Kept in the process's memory: with several
 * processes an attacker gets the limit once per process, which is still a handful per minute.
 */
interface Window {
  failures: number;
  since: number;
}

export class FailureLimiter {
  readonly #windows = new Map<string, Window>();

  constructor(
    private readonly windowMs = 15 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  blocked(key: string, limit: number): boolean {
    const w = this.#windows.get(key);
    if (!w) return false;
    if (this.now() - w.since > this.windowMs) {
      this.#windows.delete(key);
      return false;
    }
    return w.failures >= limit;
  }

  fail(key: string): void {
    const w = this.#windows.get(key);
    if (!w || this.now() - w.since > this.windowMs)
      this.#windows.set(key, { failures: 1, since: this.now() });
    else w.failures++;
    if (this.#windows.size > 100_000) this.#windows.clear();
  }

  clear(key: string): void {
    this.#windows.delete(key);
  }
}
