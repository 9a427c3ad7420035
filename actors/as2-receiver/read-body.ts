/**
 * Reading a request body: in memory while it is small (the fast path for the many small
 * messages), and from `spillFromBytes` on straight into the message's `received` stage as it
 * arrives, so a large body is never held whole. A body over the limit or one that ends early
 * leaves nothing stored. A stranger's body (readPrefix) is read and dropped but for its first
 * bytes, which are kept for the operator.
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { PassThrough } from 'node:stream';
import { PayloadTooLarge, type PayloadStore } from '../../storage/payloads/store.js';

export type Body =
  | { kind: 'memory'; bytes: Buffer }
  /** In the `received` stage of `messageId`, `bytes` long. */
  | { kind: 'stored'; messageId: string; bytes: number }
  | { kind: 'too-large' }
  | { kind: 'ended-early' }
  /** The connection went away: there is no one to answer. */
  | { kind: 'aborted' }
  /** `count` refused more bytes: the sender has too much in flight. */
  | { kind: 'busy' };

export interface BodyOptions {
  /** Most bytes taken. */
  limit: number;
  /** Bodies from this size on are stored as they arrive. */
  spillFromBytes: number;
  store: PayloadStore;
  /** Asked once a body reaches `spillFromBytes`, with what arrived so far: true keeps it in memory. */
  keepInMemory: (head: Buffer) => boolean;
  /** Told of every chunk's size when the length was not declared; false stops reading (`busy`). */
  count?: (bytes: number) => boolean;
}

/**
 * The request ended before it was read: its connection closed (a parse error of its chunked
 * body, a client gone, a stop that gave it up) while the receiver was still looking its partner
 * up. Its 'aborted' came before anyone listened, and no 'end' will come: without this check the
 * read waited for ever, and with it the receiver's stop.
 */
const endedUnread = (req: http.IncomingMessage) => !req.complete && (req.destroyed || req.readableAborted);

export function readBody(req: http.IncomingMessage, options: BodyOptions): Promise<Body> {
  if (endedUnread(req)) return Promise.resolve({ kind: 'aborted' });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let checked = false;
    let streaming = false;
    let aborted = false;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (options.count && !options.count(chunk.length)) {
        req.off('data', onData);
        return resolve({ kind: 'busy' });
      }
      if (size > options.limit) {
        req.off('data', onData);
        return resolve({ kind: 'too-large' });
      }
      chunks.push(chunk);
      if (checked || size < options.spillFromBytes) return;
      checked = true;
      if (options.keepInMemory(Buffer.concat(chunks))) return;
      // Paused before the listener goes, so no chunk is dropped in between.
      streaming = true;
      req.pause();
      req.off('data', onData);
      spill(req, chunks, options).then(resolve, reject);
    };
    req.on('data', onData);
    req.on('error', () => {});
    req.on('aborted', () => {
      aborted = true;
      if (!streaming) resolve({ kind: 'aborted' });
    });
    req.on('end', () => {
      if (aborted || streaming || size > options.limit) return;
      if (!req.complete) return resolve({ kind: 'ended-early' });
      resolve({ kind: 'memory', bytes: Buffer.concat(chunks, size) });
    });
  });
}

/** Streams what arrived and the rest into a new message's `received` stage. */
async function spill(req: http.IncomingMessage, head: Buffer[], options: BodyOptions): Promise<Body> {
  const messageId = randomUUID();
  const source = new PassThrough();
  for (const chunk of head) source.write(chunk);
  head.length = 0;
  // pipe, not pipeline: a refused body must not destroy the request before the 413 is sent.
  req.pipe(source);
  let busy = false;
  const count = options.count;
  if (count) {
    const onData = (chunk: Buffer) => {
      if (count(chunk.length)) return;
      busy = true;
      req.off('data', onData);
      source.destroy(new Error('the sender has too much in flight'));
    };
    req.on('data', onData);
  }
  req.once('close', () => {
    if (!req.complete) source.destroy(new Error('the body ended early'));
  });
  try {
    const bytes = await options.store.put({ messageId, stage: 'received' }, source, {
      maxBytes: options.limit,
    });
    if (req.complete) return { kind: 'stored', messageId, bytes };
    await options.store.removeMessage(messageId);
    return { kind: 'ended-early' };
  } catch (error) {
    req.unpipe(source);
    // put removed what it wrote; the directory it made goes too.
    await options.store.removeMessage(messageId);
    if (busy) return { kind: 'busy' };
    if (error instanceof PayloadTooLarge) return { kind: 'too-large' };
    if (!req.complete) return { kind: req.destroyed ? 'aborted' : 'ended-early' };
    throw error;
  }
}

/** A body read but for its first `keep` bytes: the prefix kept, and how long the body was. */
export type Prefix =
  | { kind: 'prefix'; bytes: Buffer; total: number }
  | { kind: 'too-large' }
  | { kind: 'ended-early' }
  | { kind: 'aborted' }
  | { kind: 'busy' };

/**
 * Reads a body to its end keeping only its first `keep` bytes: memory and storage stay bounded
 * however large it is; more than `limit` bytes is `too-large`.
 */
export function readPrefix(
  req: http.IncomingMessage,
  options: { limit: number; keep: number; count?: ((bytes: number) => boolean) | undefined },
): Promise<Prefix> {
  if (endedUnread(req)) return Promise.resolve({ kind: 'aborted' });
  return new Promise((resolve) => {
    const head = Buffer.alloc(options.keep);
    let kept = 0;
    let total = 0;
    let done = false;
    const finish = (result: Prefix) => {
      if (done) return;
      done = true;
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > options.limit) {
        req.off('data', onData);
        return finish({ kind: 'too-large' });
      }
      if (options.count && !options.count(chunk.length)) {
        req.off('data', onData);
        return finish({ kind: 'busy' });
      }
      if (kept < options.keep) kept += chunk.copy(head, kept, 0, Math.min(chunk.length, options.keep - kept));
    };
    req.on('data', onData);
    req.on('error', () => {});
    req.on('aborted', () => finish({ kind: 'aborted' }));
    req.on('end', () => {
      if (done) return;
      if (!req.complete) return finish({ kind: 'ended-early' });
      finish({ kind: 'prefix', bytes: head.subarray(0, kept), total });
    });
  });
}
