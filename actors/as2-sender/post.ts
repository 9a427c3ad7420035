/**
 * One HTTP(S) POST of an AS2 request, the body written chunk by chunk (parts in temporary
 * files read a slice at a time, waiting for the socket to drain), the answer read whole (a
 * receipt is small; a larger answer is cut off). TLS trusts the system store plus the
 * certificates pinned in the partner's profile (the agent carries them: agents.ts).
 */
import http from 'node:http';
import https from 'node:https';
import { readPiece, type Source } from '../as2/stream/source.js';

export interface PostAnswer {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** Largest answer read (a receipt is a few KiB). */
const maxAnswerBytes = 1024 * 1024;

/**
 * Posts, and posts again at once when a kept-alive connection turns out closed before any
 * answer: the partner's server closed it idle just as this request went out on it (its
 * keep-alive timeout). No answer came, so the partner either never read the request or, had
 * it processed it, answers the same Message-ID as a duplicate; waiting for the retry schedule
 * would only delay the message. A server that closed several idle connections at once may
 * leave more than one such connection in the pool, so a few are tried before a new one.
 */
export async function postAs2(
  url: URL,
  headers: Record<string, string>,
  body: Source,
  timeoutMs: number,
  agent: http.Agent,
): Promise<PostAnswer> {
  for (let tries = 1; ; tries++) {
    try {
      return await postOnce(url, headers, body, timeoutMs, agent);
    } catch (error) {
      if (!(error instanceof ClosedUnderUs)) throw error;
      if (tries > maxClosedUnderUs) throw error.cause;
    }
  }
}

/** Kept-alive connections found closed that one request moves past before it gives up. */
const maxClosedUnderUs = 4;

/** A kept-alive connection was closed by the other side before any answer to this request. */
class ClosedUnderUs extends Error {
  constructor(override readonly cause: NodeJS.ErrnoException) {
    super(cause.message);
  }
}

function postOnce(
  url: URL,
  headers: Record<string, string>,
  body: Source,
  timeoutMs: number,
  agent: http.Agent,
): Promise<PostAnswer> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(url, { method: 'POST', headers, timeout: timeoutMs, agent });
    let answered = false;
    request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    request.on('error', (error: NodeJS.ErrnoException) => {
      const closed = error.code === 'ECONNRESET' || error.code === 'EPIPE';
      reject(request.reusedSocket && !answered && closed ? new ClosedUnderUs(error) : error);
    });
    request.on('response', (response) => {
      answered = true;
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= maxAnswerBytes) chunks.push(chunk);
      });
      response.on('error', reject);
      response.on('end', () => {
        const flat: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers))
          if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
        resolve({
          status: response.statusCode ?? 0,
          statusText: response.statusMessage ?? '',
          headers: flat,
          body: Buffer.concat(chunks),
        });
      });
    });
    writeBody(request, body).then(
      () => request.end(),
      (error: Error) => request.destroy(error),
    );
  });
}

/**
 * Buffers are written at once (they are in memory already); file parts a slice at a time,
 * each after the socket took the last, so a large body never queues in memory.
 */
async function writeBody(request: http.ClientRequest, body: Source): Promise<void> {
  for (const piece of body.chunks) {
    if (Buffer.isBuffer(piece)) {
      request.write(piece);
      continue;
    }
    for await (const slice of readPiece(piece)) {
      if (request.destroyed) throw new Error('the connection closed while the body was being sent');
      if (!request.write(slice)) await drained(request);
    }
  }
}

/** Resolves when the request takes writes again; rejects when it ended first (an error, a timeout). */
function drained(request: http.ClientRequest): Promise<void> {
  return new Promise((resolve, reject) => {
    if (request.destroyed) {
      reject(new Error('the connection closed while the body was being sent'));
      return;
    }
    const done = (error?: Error) => {
      request.off('drain', onDrain);
      request.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => done();
    const onClose = () => done(new Error('the connection closed while the body was being sent'));
    request.on('drain', onDrain);
    request.on('close', onClose);
  });
}
