/**
 * The socket side of one event stream. fastify-sse-v2 opens it (the answer's headers, the
 * retry delay) and carries the single events: keep-alive comments and the last `reload`.
 * History lines take a shorter way: a batch of them, framed once by the feed for every
 * client, is written to the socket as one chunk, because the plugin serialises one event per
 * step of an async iterator, per client, and with a thousand clients that cost the flow most
 * of its pace (benchmarks/history/2026-11-22-events-results.md).
 *
 * A batch leaves as it comes while the socket takes it; when the socket says "enough" (write
 * answers false), later batches wait here, counted in lines, until it drains, and then leave
 * together in one corked write. Past the bound it refuses the batch, and the stream sends
 * `reload` and ends: a client that reads too slowly costs at most the socket's buffer plus the
 * bound, never memory without end.
 */
import type { ServerResponse } from 'node:http';
import type { EventMessage, FastifyReply } from 'fastify';

export type Chunk = string | Buffer;

export class SseOutput {
  readonly #reply: FastifyReply;
  readonly #response: ServerResponse;
  #waiting: Chunk[] = [];
  #waitingLines = 0;
  #blocked = false;
  #ended = false;

  /**
   * Takes the answer over through fastify-sse-v2: it sends the headers at once and the retry
   * delay as the stream's first event.
   */
  constructor(
    reply: FastifyReply,
    retryMs: number,
    private readonly maxWaitingLines: number,
  ) {
    // Reverse proxies must pass the stream on as it comes (nginx reads X-Accel-Buffering);
    // the plugin sets Cache-Control: no-cache itself.
    void reply.header('x-accel-buffering', 'no');
    reply.sse({ retry: retryMs });
    this.#reply = reply;
    this.#response = reply.raw;
    this.#blocked = this.#response.writableNeedDrain;
    this.#response.on('drain', () => this.#drained());
    // A write racing the client's departure fails; the 'close' the stream listens to follows.
    this.#response.on('error', () => {});
  }

  /** Nothing waits for the socket. */
  get idle(): boolean {
    return !this.#blocked;
  }

  /**
   * Sends a chunk of framed events holding `lines` history lines. False when that would leave
   * more than the bound waiting; the chunk is then dropped and the caller ends the stream.
   */
  send(chunk: Chunk, lines: number): boolean {
    if (this.#ended) return true;
    if (!this.#blocked) {
      this.#blocked = !this.#response.write(chunk);
      return true;
    }
    if (this.#waitingLines + lines > this.maxWaitingLines) return false;
    this.#waiting.push(chunk);
    this.#waitingLines += lines;
    return true;
  }

  /** One event through the plugin (it leaves after the chunks already written). */
  event(message: EventMessage): void {
    if (!this.#ended) this.#reply.sse(message);
  }

  /** Drops whatever waits and ends the stream, after `last` when given. */
  end(last?: EventMessage): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#waiting = [];
    this.#waitingLines = 0;
    if (last !== undefined && !this.#response.destroyed) this.#reply.sse(last);
    // Ending the plugin's source ends the answer once its events are out, and frees what the
    // plugin holds for this stream even when the client has already gone.
    this.#reply.sseContext.source.end();
  }

  #drained(): void {
    if (this.#ended) return;
    const waiting = this.#waiting;
    this.#waiting = [];
    this.#waitingLines = 0;
    this.#blocked = false;
    if (waiting.length === 0) return;
    this.#response.cork();
    for (const chunk of waiting) this.#blocked = !this.#response.write(chunk);
    // Uncorked on the next tick, as Node recommends, so the chunks leave in one writev.
    process.nextTick(() => this.#response.uncork());
  }
}
