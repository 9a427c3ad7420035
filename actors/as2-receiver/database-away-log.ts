/**
 * The receiver's two log lines about its database: one when AS2 messages start being answered 503
 * because the database does not take them, one when it takes them again. Requests overlap, so each
 * outcome is weighed by when its request began: one that began before the last change and ends
 * after it says nothing new. Without that, a message whose acceptance committed just before an
 * outage, answered after the first 503, told "the database takes AS2 messages again" in the middle
 * of the outage, and the next 503 told the outage a second time (the database-away test, once on
 * a slow machine).
 */
import type { CoreClient } from '../../protocol/worker-host/host.js';

export class DatabaseAwayLog {
  #away = false;
  /** performance.now() of the last change; requests that began before it do not change it back. */
  #changedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly log: CoreClient['log']) {}

  /** A request that began at `began` found the database away. */
  failed(began: number, error: unknown): void {
    if (this.#away || began < this.#changedAt) return;
    this.#away = true;
    this.#changedAt = performance.now();
    this.log('warn', 'AS2 messages are answered 503 while the database does not take them', {
      error: String(error),
    });
  }

  /** A request that began at `began` was taken (its rows committed). */
  taken(began: number): void {
    if (!this.#away || began < this.#changedAt) return;
    this.#away = false;
    this.#changedAt = performance.now();
    this.log('info', 'the database takes AS2 messages again');
  }
}
