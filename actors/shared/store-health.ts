/**
 * What an actor knows of the payload store: working, or failing since a write it could not make.
 * A failing store is told to the core once, when it starts failing, and once when a write works
 * again (the core raises `storage_failed` and its end), so an outage costs a few lines and one
 * alert, not one warning per file per look.
 */
import type { CoreClient } from '../../protocol/worker-host/host.js';

export class StoreHealth {
  #failing = false;

  constructor(private readonly core: Pick<CoreClient, 'storage'>) {}

  get failing(): boolean {
    return this.#failing;
  }

  failed(problem: string): void {
    if (this.#failing) return;
    this.#failing = true;
    this.core.storage(false, problem);
  }

  worked(): void {
    if (!this.#failing) return;
    this.#failing = false;
    this.core.storage(true);
  }
}
