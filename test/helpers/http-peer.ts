/**
 * A small HTTP server on 127.0.0.1 playing a trading partner's AS2 endpoint: it keeps every
 * request it got and answers as the test says, for instance by forwarding to a real pier
 * receiver (a proxy that can fail on purpose) or with a receipt made by openssl; and the
 * partner's side of a large upload (`postInWrites`).
 */
import http from 'node:http';
import https from 'node:https';
import type { Test } from 'tap';

export interface PeerRequest {
  method: string;
  /** The request target as sent (path and query). */
  path: string;
  /** Header names in lower case, as node reads them. */
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** How many requests came before this one on the same connection (0: a new connection). */
  onConnection: number;
}

export interface PeerAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Close the connection without answering, as a server does with an idle keep-alive one. */
  hangUp?: boolean;
}

export interface Peer {
  /** http://127.0.0.1:<port>/as2 */
  url: string;
  /** Every request received, oldest first. */
  requests: PeerRequest[];
  /** The answer given to each request, in the same order. */
  answers: PeerAnswer[];
  /** Connections (TLS sessions, over HTTPS) opened to the peer so far. */
  readonly connections: number;
}

export async function startPeer(
  t: Test,
  answer: (request: PeerRequest, index: number) => PeerAnswer | Promise<PeerAnswer>,
  options: { tls?: { key: string | Buffer; cert: string | Buffer } } = {},
): Promise<Peer> {
  const requests: PeerRequest[] = [];
  const answers: PeerAnswer[] = [];
  const served = new WeakMap<object, number>();
  const handler: http.RequestListener = (req, res) => {
    const onConnection = served.get(req.socket) ?? 0;
    served.set(req.socket, onConnection + 1);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        onConnection,
      };
      const index = requests.push(request) - 1;
      Promise.resolve()
        .then(() => answer(request, index))
        .catch((error: unknown): PeerAnswer => ({
          status: 599,
          body: `the test peer failed: ${String(error)}`,
        }))
        .then((a) => {
          answers[index] = a;
          if (a.hangUp) return void req.socket.destroy();
          const body = a.body === undefined ? Buffer.alloc(0) : Buffer.from(a.body);
          res.writeHead(a.status, { ...a.headers, 'Content-Length': String(body.length) });
          res.end(body);
        });
    });
  };
  const server = options.tls ? https.createServer(options.tls, handler) : http.createServer(handler);
  let connections = 0;
  server.on(options.tls ? 'secureConnection' : 'connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  const { port } = server.address() as { port: number };
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}/as2`,
    requests,
    answers,
    get connections() {
      return connections;
    },
  };
}

/** Hop-by-hop headers a proxy must not pass on. */
const hopByHop = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'content-length']);

/** Sends a request on to `url` unchanged and gives back the answer: the peer as a proxy. */
export async function forward(url: string, request: PeerRequest): Promise<PeerAnswer> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers))
    if (value !== undefined && !hopByHop.has(name))
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
  const answer = await fetch(url, {
    method: request.method,
    headers,
    body: new Uint8Array(request.body),
  });
  const back: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    if (!hopByHop.has(name)) back[name] = value;
  });
  return { status: answer.status, headers: back, body: Buffer.from(await answer.arrayBuffer()) };
}

/** One header of a received request as text. */
export function headerOf(request: PeerRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

export interface StreamedAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/**
 * POSTs `body` in 64 KiB writes, as a large upload goes out: with a Content-Length unless
 * `length` is false (chunked). With `hold`, only the headers go out: the answer to a declared
 * length comes before any of the body. With `close` (or `hold`), the connection is closed once
 * the answer is read, so that it is not kept for the next request.
 */
export function postInWrites(
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  options: { length?: boolean; hold?: boolean; close?: boolean } = {},
): Promise<StreamedAnswer> {
  const length = options.length ?? true;
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, ...(length ? { 'Content-Length': String(body.length) } : {}) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () => {
          if (options.close || options.hold) request.destroy();
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
          });
        });
      },
    );
    // The receiver may answer 413 and close while the body is still being sent.
    request.on('error', reject);
    const write = (at: number): void => {
      if (at >= body.length) return void request.end();
      if (request.destroyed) return;
      if (request.write(body.subarray(at, at + 65536))) write(at + 65536);
      else request.once('drain', () => write(at + 65536));
    };
    if (options.hold) request.flushHeaders();
    else write(0);
  });
}
