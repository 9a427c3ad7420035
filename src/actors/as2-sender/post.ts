/**
 * One HTTP(S) POST of an AS2 request, the body written chunk by chunk (parts in temporary
 * files read a slice at a time, waiting for the socket to drain), the answer read whole (a
 * receipt is small; a larger answer is cut off). TLS trusts the system store plus the
 * certificates pinned in the partner's profile.
 */
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import type { As2OutboundContext } from '../../runtime/channels/as2-protocol.js';
import { readPiece, type Source } from '../as2/stream/source.js';

export interface PostAnswer {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** Largest answer read (a receipt is a few KiB). */
const maxAnswerBytes = 1024 * 1024;

export function tlsOptions(context: As2OutboundContext): https.RequestOptions {
  return {
    ca: context.tls_trusted.length > 0 ? [...tls.rootCertificates, ...context.tls_trusted] : undefined,
    rejectUnauthorized: context.tls_verify,
    ...(context.tls_client?.private_key_pem
      ? { cert: context.tls_client.certificate_pem, key: context.tls_client.private_key_pem }
      : {}),
  };
}

export function postAs2(
  url: URL,
  headers: Record<string, string>,
  body: Source,
  context: As2OutboundContext,
  timeoutMs: number,
  agent: http.Agent | undefined,
): Promise<PostAnswer> {
  const secure = url.protocol === 'https:';
  const client = secure ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(url, {
      method: 'POST',
      headers,
      timeout: timeoutMs,
      ...(secure ? { ...tlsOptions(context), agent: false } : { agent }),
    });
    request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    request.on('error', reject);
    request.on('response', (response) => {
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
