/**
 * One subscriber of the message history stream (spec 6.1): the replay after `Last-Event-ID`,
 * then live lines, keep-alive comments, and the bounds. It subscribes before it reads the
 * replay and holds live lines back meanwhile, then drops those the replay already sent: no
 * gap and no duplicate at the seam. A client that asked for more than the replay bound, or
 * lets more than the buffer bound pile up unread, gets one `reload` event and the end.
 */
import type { EventMessage } from 'fastify-sse-v2';
import type { FeedLine, HistoryFeed, StreamLimits } from '../../../runtime/events/history-feed.js';

export class HistoryStream implements AsyncIterable<EventMessage> {
  #queue: EventMessage[] = [];
  /** Lines (not comments) in the queue, against the buffer bound. */
  #lines = 0;
  /** Live lines that arrived while the replay was read. */
  #held: FeedLine[] | undefined;
  #replayed: Set<number> | undefined;
  /** Nothing more is queued; the stream ends when the queue is empty. */
  #ending = false;
  #wake: (() => void) | undefined;
  #unsubscribe: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly feed: HistoryFeed,
    private readonly filter: { messageId?: string | undefined; lastEventId?: number | undefined },
    private readonly limits: StreamLimits,
  ) {}

  async open(): Promise<void> {
    this.#unsubscribe = this.feed.subscribe((lines) => this.#live(lines));
    this.#timer = setInterval(() => {
      if (this.#queue.length === 0) this.#push({ comment: ' keep-alive' });
    }, this.limits.keepAliveMs);
    if (this.filter.lastEventId === undefined) return;
    this.#held = [];
    const stored = await this.feed.after(
      this.filter.lastEventId,
      this.filter.messageId,
      this.limits.replay + 1,
    );
    if (this.#ending) return;
    if (stored.length > this.limits.replay) {
      this.#reload(`more than ${this.limits.replay} lines were missed`);
      return;
    }
    this.#replayed = new Set(stored.map((l) => l.id));
    for (const line of stored) this.#pushLine(line);
    const held = this.#held;
    this.#held = undefined;
    this.#live(held);
  }

  /** Ends the stream and lets go of the feed and the timer (the client left, or the server stops). */
  close(): void {
    this.#ending = true;
    this.#queue = [];
    this.#release();
    this.#wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<EventMessage> {
    for (;;) {
      const next = this.#queue.shift();
      if (next) {
        if (next.event === 'message_history') this.#lines--;
        yield next;
        continue;
      }
      if (this.#ending) return;
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = undefined;
    }
  }

  #live(lines: readonly FeedLine[]): void {
    if (this.#ending) return;
    for (const line of lines) {
      if (this.filter.messageId !== undefined && line.message_id !== this.filter.messageId) continue;
      if (this.#held) {
        this.#held.push(line);
        if (this.#held.length > this.limits.buffer) return this.#reload('the client reads too slowly');
        continue;
      }
      if (this.#replayed?.has(line.id)) continue;
      this.#pushLine(line);
      if (this.#lines > this.limits.buffer) return this.#reload('the client reads too slowly');
    }
  }

  #pushLine(line: FeedLine): void {
    this.#lines++;
    this.#push({ event: 'message_history', id: String(line.id), data: line.data });
  }

  #push(item: EventMessage): void {
    this.#queue.push(item);
    this.#wake?.();
  }

  #reload(reason: string): void {
    this.#queue = [];
    this.#lines = 0;
    this.#push({ event: 'reload', data: JSON.stringify({ reason }) });
    this.#ending = true;
    this.#release();
  }

  #release(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    clearInterval(this.#timer);
    this.#held = undefined;
    this.#replayed = undefined;
  }
}
