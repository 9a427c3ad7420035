/**
 * One subscriber of the message history stream (spec 6.1): the replay after `Last-Event-ID`,
 * then live lines, keep-alive comments, and the bounds. It subscribes before it reads the
 * replay and holds live lines back until the response is open, then drops those the replay
 * already sent: no gap and no duplicate at the seam. A client that asked for more than the
 * replay bound, or lets more than the buffer bound pile up unread, gets one `reload` event
 * and the end.
 */
import {
  framesOf,
  type FeedBatch,
  type FeedLine,
  type HistoryFeed,
  type StreamLimits,
} from '../../../runtime/events/history-feed.js';
import type { SseOutput } from './sse-output.js';

export class HistoryStream {
  /** Live lines that arrived before the response was open. */
  #held: FeedLine[] | undefined;
  #replay: FeedLine[] = [];
  /**
   * Ids the replay sent that may still come live: a line the feed had read (or was reading)
   * when the replay was read is handed out after it. Each is dropped once when it comes; at
   * most the replay bound of ids.
   */
  #replayed: Set<number> | undefined;
  /** Why the stream ends with `reload` before it is even open. */
  #reloadAtOpen: string | undefined;
  #output: SseOutput | undefined;
  #closed = false;
  #unsubscribe: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly feed: HistoryFeed,
    private readonly filter: { messageId?: string | undefined; lastEventId?: number | undefined },
    private readonly limits: StreamLimits,
  ) {}

  /** Subscribes and reads the replay; live lines are held until `attach`. */
  async open(): Promise<void> {
    this.#held = [];
    this.#unsubscribe = this.feed.subscribe((batch) => this.#live(batch));
    if (this.filter.lastEventId === undefined) return;
    const stored = await this.feed.after(
      this.filter.lastEventId,
      this.filter.messageId,
      this.limits.replay + 1,
    );
    if (this.#closed) return;
    if (stored.length > this.limits.replay) {
      this.#endAtOpen(`more than ${this.limits.replay} lines were missed`);
      return;
    }
    this.#replay = stored;
  }

  /** Sends the replay and the held lines on the opened stream, then goes live. */
  attach(output: SseOutput): void {
    this.#output = output;
    if (this.#closed) return output.end();
    if (this.#reloadAtOpen !== undefined) return this.#reload(this.#reloadAtOpen);
    if (this.#replay.length > 0) this.#replayed = new Set(this.#replay.map((line) => line.id));
    const held = this.#withoutReplayed(this.#held ?? []);
    const first = [...this.#replay, ...held];
    this.#replay = [];
    this.#held = undefined;
    // The replay is within its bound; the held lines count against the buffer like any others.
    if (first.length > 0 && !output.send(framesOf(first), held.length)) {
      return this.#reload('the client reads too slowly');
    }
    this.#timer = setInterval(() => {
      if (output.idle) output.event({ comment: ' keep-alive' });
    }, this.limits.keepAliveMs);
  }

  /** Ends the stream and lets go of the feed and the timer (the client left, or the server stops). */
  close(): void {
    this.#closed = true;
    this.#release();
    this.#output?.end();
  }

  #live(batch: FeedBatch): void {
    if (this.#closed) return;
    const messageId = this.filter.messageId;
    let lines =
      messageId === undefined ? batch.lines : batch.lines.filter((line) => line.message_id === messageId);
    if (lines.length === 0) return;
    if (this.#held) {
      for (const line of lines) this.#held.push(line);
      if (this.#held.length > this.limits.buffer) this.#endAtOpen('the client reads too slowly');
      return;
    }
    lines = this.#withoutReplayed(lines);
    if (lines.length === 0) return;
    // Without a filter the batch's bytes, encoded once, go to every client as they are.
    const chunk = lines === batch.lines ? batch.bytes : framesOf(lines);
    if (!this.#output?.send(chunk, lines.length)) this.#reload('the client reads too slowly');
  }

  /** The lines the replay did not send (the same array when that is all of them). */
  #withoutReplayed(lines: readonly FeedLine[]): readonly FeedLine[] {
    const replayed = this.#replayed;
    if (!replayed || replayed.size === 0) return lines;
    const fresh = lines.filter((line) => !replayed.delete(line.id));
    return fresh.length === lines.length ? lines : fresh;
  }

  #endAtOpen(reason: string): void {
    this.#reloadAtOpen = reason;
    this.#release();
  }

  #reload(reason: string): void {
    this.#closed = true;
    this.#release();
    this.#output?.end({ event: 'reload', data: JSON.stringify({ reason }) });
  }

  #release(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    clearInterval(this.#timer);
    this.#held = undefined;
    this.#replay = [];
    this.#replayed = undefined;
  }
}
