/**
 * Where asynchronous receipts come back during `pier bench as2 --receipts async`: an HTTP
 * listener on the port of `--receipt-url`. Each receipt is matched to its message by its
 * Original-Message-ID and checked like a synchronous one; a message whose receipt has not come
 * within the timeout counts as `no-receipt`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseMdn } from '../../actors/as2/index.js';
import { checkReceipt, type Expected } from './check-receipt.js';

interface Waiting {
  expected: Expected;
  settle: (failure: string | null) => void;
  timer: NodeJS.Timeout;
}

export class AsyncReceipts {
  readonly #waiting = new Map<string, Waiting>();
  readonly #early = new Map<string, { body: Buffer; headers: Record<string, string> }>();
  #server: http.Server | undefined;

  constructor(
    private readonly verificationPems: string[],
    private readonly timeoutMs: number,
  ) {}

  /** Listens on `url`'s port (every address, since the receiver may be on another machine). */
  async listen(url: string, host = '0.0.0.0'): Promise<number> {
    const parsed = new URL(url);
    const port = Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
    this.#server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(request.headers))
          if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
        this.#arrived(Buffer.concat(chunks), headers);
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.#server!.once('error', reject);
      this.#server!.listen(port, host, () => resolve());
    });
    return (this.#server.address() as AddressInfo).port;
  }

  /** The receipt of the message sent as `expected.messageId`: null when right, else the failure. */
  expect(expected: Expected): Promise<string | null> {
    return new Promise((resolve) => {
      const early = this.#early.get(expected.messageId);
      if (early) {
        this.#early.delete(expected.messageId);
        resolve(checkReceipt(early.body, early.headers, expected, this.verificationPems));
        return;
      }
      const timer = setTimeout(() => {
        this.#waiting.delete(expected.messageId);
        resolve('no-receipt');
      }, this.timeoutMs);
      this.#waiting.set(expected.messageId, { expected, settle: resolve, timer });
    });
  }

  #arrived(body: Buffer, headers: Record<string, string>): void {
    let original: string | null = null;
    try {
      // Read once without the certificates only to find whose receipt it is; checked below.
      original = parseMdn(body, headers).originalMessageId?.trim() ?? null;
    } catch {
      return;
    }
    if (original === null) return;
    const waiting = this.#waiting.get(original);
    if (!waiting) {
      // The receipt may come before the HTTP answer to the message itself.
      this.#early.set(original, { body, headers });
      return;
    }
    this.#waiting.delete(original);
    clearTimeout(waiting.timer);
    waiting.settle(checkReceipt(body, headers, waiting.expected, this.verificationPems));
  }

  async close(): Promise<void> {
    for (const w of this.#waiting.values()) {
      clearTimeout(w.timer);
      w.settle('no-receipt');
    }
    this.#waiting.clear();
    if (this.#server) await new Promise<void>((resolve) => this.#server!.close(() => resolve()));
  }
}
