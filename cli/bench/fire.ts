/**
 * Firing a message set at one endpoint, closed loop: `concurrency` clients, each sending its
 * next message when the last one's receipt is in, over kept-alive connections or a new
 * connection per message, until `count` messages are sent or `durationMs` has passed. Each
 * answer is checked (check-receipt.ts) as it comes; nothing is built while timed.
 */
import http from 'node:http';
import https from 'node:https';
import { tlsOptions } from '../../actors/as2-sender/agents.js';
import type { As2OutboundContext } from '../../protocol/as2-protocol.js';
import type { AsyncReceipts } from './async-receipts.js';
import { checkHttpAnswer, type Answer, type Expected } from './check-receipt.js';
import type { Shot } from './figures.js';
import type { MessageSet } from './message-set.js';

export type Connections = 'keepalive' | 'new';

export interface FireOptions {
  url: string;
  context: As2OutboundContext;
  set: MessageSet;
  concurrency: number;
  connections: Connections;
  count: number;
  durationMs: number | null;
  timeoutMs: number;
  /** Makes this firing's Message-IDs its own (the set's with this suffix). */
  firingTag: string;
  /** Where in the set this firing starts (the set is used round). */
  firstIndex: number;
  receipts: AsyncReceipts | null;
  onShot?: (shots: readonly Shot[]) => void;
}

export interface Firing {
  shots: Shot[];
  /** From the first request out to the last receipt in. */
  seconds: number;
}

/** The request headers a profile adds: HTTP basic credentials and the partner's own headers. */
function profileHeaders(context: As2OutboundContext): Record<string, string> {
  const headers: Record<string, string> = {};
  if (context.http_basic_user)
    headers.Authorization = `Basic ${Buffer.from(`${context.http_basic_user}:${context.http_basic_password}`).toString('base64')}`;
  for (const h of context.http_headers) headers[h.name] = h.value;
  return headers;
}

/**
 * Whether a request failed because this side refused the server's certificate (untrusted issuer,
 * self-signed, expired, another name): OpenSSL's verification codes and Node's name check.
 */
function tlsRefusal(error: NodeJS.ErrnoException): boolean {
  const code = error.code ?? '';
  return code === 'ERR_TLS_CERT_ALTNAME_INVALID' || /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(code);
}

function post(
  url: URL,
  headers: Record<string, string>,
  body: Buffer,
  agent: http.Agent | false,
  tls: ReturnType<typeof tlsOptions> | Record<string, never>,
  timeoutMs: number,
): Promise<Answer | 'connection' | 'tls' | 'timeout'> {
  return new Promise((resolve) => {
    const send = url.protocol === 'https:' ? https.request : http.request;
    const request = send(url, { method: 'POST', agent, headers, ...tls }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (c: Buffer) => chunks.push(c));
      response.on('end', () => {
        const h: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers))
          if (value !== undefined) h[name] = Array.isArray(value) ? value.join(', ') : value;
        resolve({ status: response.statusCode ?? 0, headers: h, body: Buffer.concat(chunks) });
      });
      response.on('error', () => resolve('connection'));
    });
    request.setTimeout(timeoutMs, () => {
      request.destroy();
      resolve('timeout');
    });
    request.on('error', (error: NodeJS.ErrnoException) => resolve(tlsRefusal(error) ? 'tls' : 'connection'));
    request.end(body);
  });
}

export async function fire(o: FireOptions): Promise<Firing> {
  const url = new URL(o.url);
  const tls = url.protocol === 'https:' ? tlsOptions(o.context) : {};
  const agent: http.Agent | false =
    o.connections === 'keepalive'
      ? url.protocol === 'https:'
        ? new https.Agent({ keepAlive: true, maxSockets: o.concurrency, ...tls })
        : new http.Agent({ keepAlive: true, maxSockets: o.concurrency })
      : false;
  const extra = profileHeaders(o.context);
  const messages = o.set.manifest.messages;
  const signed = o.set.manifest.signing_algorithm !== 'none';
  const receipts = o.set.manifest.receipts;
  const shots: Shot[] = [];
  const start = performance.now();
  const deadline = o.durationMs === null ? Infinity : start + o.durationMs;
  let next = 0;
  const client = async () => {
    while (next < o.count && performance.now() < deadline) {
      const k = next++;
      const index = (o.firstIndex + k) % messages.length;
      const m = messages[index]!;
      const messageId = m.message_id.replace(/@/, `-${o.firingTag}-${k}@`);
      const expected: Expected = {
        messageId,
        mic: m.mic,
        receipts,
        signed,
        receiptSigned: receipts === 'sync-signed' || (receipts === 'async' && o.context.mdn_signed),
      };
      const body = o.set.bodies[index]!;
      const headers = {
        ...m.headers,
        ...extra,
        'Message-ID': messageId,
        Date: new Date().toUTCString(),
        'Content-Length': String(body.length),
        ...(agent === false ? { Connection: 'close' } : {}),
      };
      const startMs = performance.now() - start;
      const waitingReceipt = receipts === 'async' && o.receipts ? o.receipts.expect(expected) : null;
      const answer = await post(url, headers, body, agent, tls, o.timeoutMs);
      let failure =
        typeof answer === 'string' ? answer : checkHttpAnswer(answer, expected, o.context.verification);
      // A message refused over HTTP has no receipt to wait for.
      if (waitingReceipt && failure === null) failure = await waitingReceipt;
      shots.push({ startMs, endMs: performance.now() - start, failure });
      o.onShot?.(shots);
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, client));
  if (agent) agent.destroy();
  const last = shots.reduce((m, s) => Math.max(m, s.endMs), 0);
  return { shots, seconds: last / 1000 };
}
