/**
 * One AS2 request posted to a receiver, and its synchronous receipt checked: it counts only when
 * it says `processed` with the MIC the packer computed, and, when asked, its signature verifies.
 */
import http from 'node:http';
import type { X509Certificate } from 'node:crypto';
import { parseMdn } from '../../actors/as2/index.js';
import { as2RequestHeaders, type BuiltRequest } from './as2-requests.js';

export interface PostResult {
  ok: boolean;
  /** From the request's start to the receipt's last byte. */
  ms: number;
  problem?: string;
}

export interface As2Target {
  url: string;
  /** The receipt's signer. */
  certificate: X509Certificate;
}

export async function postAs2(
  target: As2Target,
  p: BuiltRequest,
  messageId: string,
  agent: http.Agent | false,
  verify: boolean,
): Promise<PostResult> {
  const t0 = performance.now();
  const answer = await new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>(
    (resolve, reject) => {
      const request = http.request(
        target.url,
        {
          method: 'POST',
          agent,
          headers: {
            ...as2RequestHeaders,
            ...p.headers,
            'Message-ID': messageId,
            'Content-Length': String(p.body.length),
            ...(agent === false ? { Connection: 'close' } : {}),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (c: Buffer) => chunks.push(c));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks),
            }),
          );
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(p.body);
    },
  ).catch((e: unknown) => ({ status: 0, headers: {}, body: Buffer.from(String(e)) }));
  const ms = performance.now() - t0;
  if (answer.status !== 200) return { ok: false, ms, problem: `HTTP ${answer.status}` };
  const text = answer.body.toString('latin1');
  const disposition = /^Disposition:[ \t]*([^\r\n]*)/im.exec(text)?.[1] ?? '';
  const mic = /^Received-Content-MIC:[ \t]*([^\r\n]*)/im.exec(text)?.[1]?.trim() ?? '';
  if (!/;\s*processed\s*$/.test(disposition)) return { ok: false, ms, problem: `disposition ${disposition}` };
  if (mic !== p.mic) return { ok: false, ms, problem: `MIC ${mic}, expected ${p.mic}` };
  if (verify) {
    const mdn = parseMdn(answer.body, answer.headers as Record<string, string>, {
      verificationCerts: [target.certificate],
      requireSigned: true,
    });
    if (!mdn.signature?.verified) return { ok: false, ms, problem: 'receipt signature does not verify' };
  }
  return { ok: true, ms };
}
