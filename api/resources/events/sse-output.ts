/**
 * The socket side of one event stream. It writes each chunk as it comes while the socket takes
 * it; when the socket says "enough" (write answers false), later chunks wait here, counted in
 * lines, until the socket drains, and then leave together in one corked write. Past the bound
 * it refuses the chunk, and the stream sends `reload` and ends: a client that reads too slowly
 * costs at most the socket's buffer plus the bound, never memory without end.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import { sseRetry } from '../../../runtime/events/sse-frame.js';

export type Chunk = string | Buffer;

/** Takes the response over from fastify and sends the event stream's headers and retry delay. */
export function openSseResponse(reply: FastifyReply, retryMs: number): ServerResponse {
  void reply.hijack();
  const raw = reply.raw;
  // Headers hooks have set (CORS, security headers) go out as they would on any answer.
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) raw.setHeader(name, value);
  }
  // The body ends when the connection closes (RFC 9112 6.3), not with chunked encoding: a
  // stream is never followed by another request on its connection, and each write is then
  // one system call with the bytes as they are, with no chunk framing around them.
  raw.shouldKeepAlive = false;
  raw.useChunkedEncodingByDefault = false;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    // Reverse proxies must pass the stream on as it comes (nginx reads X-Accel-Buffering).
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
  });
  raw.write(sseRetry(retryMs));
  return raw;
}

export class SseOutput {
  #waiting: Chunk[] = [];
  #waitingLines = 0;
  #blocked = false;
  #ended = false;

  constructor(
    private readonly response: ServerResponse,
    private readonly maxWaitingLines: number,
  ) {
    this.#blocked = response.writableNeedDrain;
    response.on('drain', () => this.#drained());
    // A write racing the client's departure fails; the 'close' the stream listens to follows.
    response.on('error', () => {});
  }

  /** Nothing waits for the socket. */
  get idle(): boolean {
    return !this.#blocked;
  }

  /**
   * Sends a chunk holding `lines` history lines. False when that would leave more than the
   * bound waiting; the chunk is then dropped and the caller ends the stream.
   */
  send(chunk: Chunk, lines: number): boolean {
    if (this.#ended) return true;
    if (!this.#blocked) {
      this.#blocked = !this.response.write(chunk);
      return true;
    }
    if (this.#waitingLines + lines > this.maxWaitingLines) return false;
    this.#waiting.push(chunk);
    this.#waitingLines += lines;
    return true;
  }

  /** Drops whatever waits and ends the response after `last`. */
  end(last?: string): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#waiting = [];
    this.#waitingLines = 0;
    if (this.response.destroyed) return;
    if (last === undefined) this.response.end();
    else this.response.end(last);
  }

  #drained(): void {
    if (this.#ended) return;
    const waiting = this.#waiting;
    this.#waiting = [];
    this.#waitingLines = 0;
    this.#blocked = false;
    if (waiting.length === 0) return;
    this.response.cork();
    for (const chunk of waiting) this.#blocked = !this.response.write(chunk);
    // Uncorked on the next tick, as Node recommends, so the chunks leave in one writev.
    process.nextTick(() => this.response.uncork());
  }
}
