/**
 * A test peer (http-peer.ts) that records every request as it arrived (headers and the
 * de-framed body) and answers 200 without a receipt: what a partner's endpoint sees of pier.
 */
import type { Test } from 'tap';
import { startPeer, type PeerRequest } from './http-peer.js';
import { waitFor } from './wait.js';

export type CapturedRequest = PeerRequest;

export interface CaptureServer {
  /** The base URL; each profile gets its own path so requests tell their partner. */
  url: string;
  requests: CapturedRequest[];
  /** The first request to `path`, waiting for it to arrive. */
  next(path: string, timeoutMs?: number): Promise<CapturedRequest>;
}

export async function startCaptureServer(t: Test): Promise<CaptureServer> {
  const peer = await startPeer(t, () => ({
    status: 200,
    headers: { 'Content-Type': 'text/plain' },
    body: 'OK',
  }));
  const { requests } = peer;
  return {
    url: new URL(peer.url).origin,
    requests,
    next: (path, timeoutMs = 15_000) =>
      waitFor(() => requests.find((r) => r.path === path), `a request to ${path}`, timeoutMs),
  };
}
