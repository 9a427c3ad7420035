/**
 * One HTTP(S) POST of an AS2 request, the body written chunk by chunk, the answer read
 * whole (a receipt is small; a larger answer is cut off). TLS trusts the system store plus
 * the certificates pinned in the partner's profile.
 */
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import type { As2OutboundContext } from '../../runtime/channels/as2-protocol.js';

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
  body: readonly Buffer[],
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
    for (const chunk of body) request.write(chunk);
    request.end();
  });
}
