/**
 * A plain HTTP server on 127.0.0.1 that records every request as it arrived (headers and the
 * de-framed body) and answers 200 without a receipt: what a partner's endpoint sees of pier.
 */
import http from 'node:http';
import type { Test } from 'tap';
import { waitFor } from './wait.js';

export interface CapturedRequest {
  path: string;
  /** Header names in lower case, as node reads them. */
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface CaptureServer {
  /** The base URL; each profile gets its own path so requests tell their partner. */
  url: string;
  requests: CapturedRequest[];
  /** The first request to `path`, waiting for it to arrive. */
  next(path: string, timeoutMs?: number): Promise<CapturedRequest>;
}

export async function startCaptureServer(t: Test): Promise<CaptureServer> {
  const requests: CapturedRequest[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) });
      response.writeHead(200, { 'Content-Type': 'text/plain' }).end('OK');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    next: (path, timeoutMs = 15_000) =>
      waitFor(() => requests.find((r) => r.path === path), `a request to ${path}`, timeoutMs),
  };
}
