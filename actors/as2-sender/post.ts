/**
 * One HTTP(S) POST of an AS2 request, the body written chunk by chunk (parts in temporary
 * files read a slice at a time, waiting for the socket to drain), the answer read whole (a
 * receipt is small; a larger answer is cut off). TLS trusts the system store plus the
 * certificates pinned in the partner's profile (the agent carries them: agents.ts).
 */
import http from 'node:http';
import https from 'node:https';
import { readPiece, type Source } from '../as2/stream/source.js';
import { limits } from '../../limits/limits.js';

export interface PostAnswer {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: Buffer;
  /** The answer is a proxy's refusal of the CONNECT tunnel: the partner never saw the request. */
  tunnelRefused?: boolean;
}

/**
 * Posts, and posts again at once in two cases where no answer was read:
 * - A kept-alive connection turned out closed: the partner's server closed it idle just as this
 *   request went out on it (its keep-alive timeout). The partner either never read the request
 *   or, had it processed it, answers the same Message-ID as a duplicate; waiting for the retry
 *   schedule would only delay the message. A server that closed several idle connections at
 *   once may leave more than one such connection in the pool, so a few are tried.
 * - The connection was reset before the whole body was out: a server that answers before it
 *   read the whole request (a proxy asking for credentials, a partner refusing a body that
 *   large) and closes with the rest unread resets it, and its answer is often lost with the
 *   connection (the reset is taken before the answer is read). Posted once more with
 *   `Expect: 100-continue`, the server gives that answer before any of the body is sent, and
 *   the delivery reports it (407, 413) instead of a reset. The partner had not the whole
 *   message, so it cannot have processed it: posting again makes no duplicate.
 */
export async function postAs2(
  url: URL,
  headers: Record<string, string>,
  body: Source,
  timeoutMs: number,
  agent: http.Agent,
): Promise<PostAnswer> {
  let askFirst = false;
  for (let tries = 1; ; tries++) {
    try {
      return await postOnce(url, headers, body, timeoutMs, agent, askFirst);
    } catch (error) {
      if (error instanceof ClosedUnderUs && tries <= limits.maxClosedConnectionsSkipped) continue;
      if (error instanceof ResetWhileSending && !askFirst) {
        askFirst = true;
        continue;
      }
      throw error instanceof ClosedUnderUs || error instanceof ResetWhileSending ? error.cause : error;
    }
  }
}

/** A kept-alive connection was closed by the other side before any answer to this request. */
class ClosedUnderUs extends Error {
  constructor(override readonly cause: NodeJS.ErrnoException) {
    super(cause.message);
  }
}

/** The connection was reset before the whole body was out, and before any answer was read. */
class ResetWhileSending extends Error {
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
  askFirst: boolean,
): Promise<PostAnswer> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(url, {
      method: 'POST',
      headers: askFirst ? { ...headers, expect: '100-continue' } : headers,
      timeout: timeoutMs,
      agent,
    });
    let response: http.IncomingMessage | undefined;
    // https-proxy-agent tells the proxy's answer to CONNECT here; one that is not 200 is then
    // played back as this request's response.
    let tunnelRefused = false;
    request.on('proxyConnect', (connect: { statusCode: number }) => {
      tunnelRefused = connect.statusCode !== 200;
    });
    const chunks: Buffer[] = [];
    let size = 0;
    const answer = (): PostAnswer => {
      const flat: Record<string, string> = {};
      for (const [name, value] of Object.entries(response!.headers))
        if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
      return {
        status: response!.statusCode ?? 0,
        statusText: response!.statusMessage ?? '',
        headers: flat,
        body: Buffer.concat(chunks),
        ...(tunnelRefused ? { tunnelRefused } : {}),
      };
    };
    request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    request.on('error', (error: NodeJS.ErrnoException) => {
      // An answer whose end the reset overtook still stands; a receipt (2xx) cut off is none.
      if (response && (response.complete || response.statusCode! >= 300)) {
        resolve(answer());
        return;
      }
      const reset = error.code === 'ECONNRESET' || error.code === 'EPIPE';
      if (reset && !response && request.reusedSocket) reject(new ClosedUnderUs(error));
      else if (reset && !response && !request.writableFinished) reject(new ResetWhileSending(error));
      else reject(error);
    });
    request.on('response', (incoming) => {
      response = incoming;
      incoming.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= limits.maxAnswerBytes) chunks.push(chunk);
      });
      incoming.on('error', reject);
      incoming.on('end', () => {
        resolve(answer());
        // Answered before the body was sent: the request can never be completed on this
        // connection, so it is not given back to the pool.
        if (!sending) request.destroy();
      });
    });
    let sending = false;
    const send = () => {
      if (sending || response || request.destroyed) return;
      sending = true;
      clearTimeout(waiting);
      writeBody(request, body).then(
        () => request.end(),
        (error: Error) => request.destroy(error),
      );
    };
    const waiting = askFirst ? setTimeout(send, limits.continueWaitMs) : undefined;
    if (askFirst) request.on('continue', send);
    else send();
    request.on('close', () => clearTimeout(waiting));
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
