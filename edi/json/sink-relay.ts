/**
 * How a reader hands its events on: to the sink as each is read, so none is kept for long. A
 * refusal of the sink's (the EDI writer's, say) is held until the reader has read the rest of
 * what was pushed, and thrown then: a refusal of the reader's later in the same push comes
 * first, as it did when a push answered its events as a list for the sink to take after.
 */
import type { EdiEvent, EventSink } from './events.js';

export class SinkRelay {
  #sink: EventSink | null = null;
  #refused = false;
  #refusal: unknown = null;

  /** Where the events of the next push go. */
  to(sink: EventSink): void {
    this.#sink = sink;
  }

  event(e: EdiEvent): void {
    if (this.#refused) return;
    try {
      this.#sink!.event(e);
    } catch (refusal) {
      this.#refused = true;
      this.#refusal = refusal;
    }
  }

  /** Once the push is read: throws the sink's refusal, if it made one. */
  settle(): void {
    if (this.#refused) throw this.#refusal;
  }
}
