/**
 * The stages of messages whose acceptance failed because the database connection did: the
 * statement may have committed with only its answer lost, and then those stages are the stored
 * message's document. Removing them at once, as a failed acceptance's stages were, left such a
 * message without its document: the partner or the poller offered it again, got "duplicate", and
 * the delivery had nothing to deliver. They are kept instead, and once the database answers again
 * (after the next acceptance that commits), those of messages that were not stored are removed.
 */
import type { PayloadStore } from '../../storage/payloads/store.js';

/** Which of these messages are stored; null when the source cannot ask (its stages are then kept). */
export type StoredOf = (ids: readonly string[]) => Promise<string[] | null>;

export class UncertainStages {
  readonly #ids = new Set<string>();
  #settling = false;

  constructor(
    private readonly store: Pick<PayloadStore, 'removeMessage'>,
    private readonly storedOf: StoredOf,
  ) {}

  /** Messages whose stages wait to be settled. */
  get size(): number {
    return this.#ids.size;
  }

  /** Whether the stages of message `id` are kept, waiting to be settled. */
  has(id: string): boolean {
    return this.#ids.has(id);
  }

  /** The acceptance of message `id` failed with the database: its stages stay for now. */
  keep(id: string): void {
    this.#ids.add(id);
  }

  /**
   * Asks which of the kept messages are stored and removes the stages of the others; leaves them
   * all for the next call when the database does not answer. Called after an acceptance committed.
   */
  async settle(): Promise<void> {
    if (this.#ids.size === 0 || this.#settling) return;
    this.#settling = true;
    try {
      const ids = [...this.#ids];
      const stored = await this.storedOf(ids);
      const keep = new Set(stored ?? ids);
      for (const id of ids) {
        this.#ids.delete(id);
        if (!keep.has(id)) await this.store.removeMessage(id).catch(() => {});
      }
    } catch {
      // The database is away again: the next acceptance that commits settles them.
    } finally {
      this.#settling = false;
    }
  }
}
