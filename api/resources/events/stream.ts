/**
 * One subscriber of the message history stream (docs/api/events.md#message-history-stream): the replay after `Last-Event-ID`,
 * then live lines, keep-alive comments, and the bounds. The feed says after which id it hands
 * this subscriber every line, and every line up to that id is settled: the replay reads the
 * lines after `Last-Event-ID` up to there, live lines follow, held back until the response is
 * open. No gap and no duplicate at the seam. A client that asked for more than the replay
 * bound, or lets more than the buffer bound pile up unread, gets one `reload` event and the end.
 */
import {
  type FeedBatch,
  type FeedLine,
  framesOf,
  type HistoryFeed,
  type StreamLimits,
} from '../../../runtime/index.js';
import type { EventMessage } from 'fastify';
import type { SseOutput } from './sse-output.js';
import { ApiError } from '../../errors.js';

export class HistoryStream {
  /** Live lines that arrived before the response was open. */
  #held: FeedLine[] | undefined;
  #replay: FeedLine[] = [];
  /**
   * Live lines up to this id are dropped: the client named it, and another node may have shown
   * it lines this process has not handed out yet.
   */
  #seenUpTo = 0;
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

  /**
   * Subscribes, waits until the feed knows where this subscriber starts (at once while it
   * follows the table) and reads the replay; live lines are held until `attach`.
   */
  async open(): Promise<void> {
    this.#held = [];
    const subscription = this.feed.subscribe((batch) => this.#live(batch));
    this.#unsubscribe = subscription.unsubscribe;
    const from = await subscription.from;
    const afterId = this.filter.lastEventId;
    if (this.#closed || afterId === undefined) return;
    this.#seenUpTo = afterId;
    if (afterId >= from) return;
    const stored = await this.feed.between(afterId, from, this.filter.messageId, this.limits.replay + 1);
    if (this.#closed) return;
    // The server read is leaving in a failover: the client asks again in a moment, elsewhere.
    if (stored === undefined)
      throw new ApiError('DATABASE_UNAVAILABLE', undefined, undefined, { 'retry-after': '1' });
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
    const held = this.#unseen(this.#held ?? []);
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
  /** Ends the stream, after `last` when given (the server stopping says so). */
  close(last?: EventMessage): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#release();
    this.#output?.end(last);
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
    lines = this.#unseen(lines);
    if (lines.length === 0) return;
    // Without a filter the batch's bytes, encoded once, go to every client as they are.
    const chunk = lines === batch.lines ? batch.bytes : framesOf(lines);
    if (!this.#output?.send(chunk, lines.length)) this.#reload('the client reads too slowly');
  }

  /** The lines after the client's `Last-Event-ID` (the same array when that is all of them). */
  #unseen(lines: readonly FeedLine[]): readonly FeedLine[] {
    const seenUpTo = this.#seenUpTo;
    if (lines.length === 0 || lines[0]!.id > seenUpTo) return lines;
    const fresh = lines.filter((line) => line.id > seenUpTo);
    // Lines come in id order: once one is past the mark, every later one is.
    if (fresh.length > 0) this.#seenUpTo = 0;
    return fresh;
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
  }
}
