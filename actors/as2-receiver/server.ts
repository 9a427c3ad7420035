/**
 * The receiver's HTTP or HTTPS server: POSTs to its path are AS2 messages or asynchronous
 * receipts. Every answer carries the Server header of spec 2.11. Bodies over max_message_mib
 * are refused with 413 and nothing of them stays stored; large bodies are stored as they
 * arrive (read-body.ts). A failure is a 500 with no detail, never a crash.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type tls from 'node:tls';
import type { CoreClient } from '../../protocol/worker-host/host.js';
import type { PayloadStore } from '../../storage/payloads/store.js';
import type { As2ReceiverSettings } from './config.js';
import { InboundContexts } from './contexts.js';
import { MessageOpener, largeFromBytes } from './open-pool.js';
import { readBody } from './read-body.js';
import { sendAsyncReceipt } from './receipt.js';
import { looksLikeReceipt, receiveReceipt } from './receipts-in.js';
import { receiveMessage, type Answer, type Incoming, type StoredIncoming } from './receive.js';

export class As2ReceiverServer {
  readonly #server: http.Server | https.Server;
  readonly #contexts: InboundContexts;
  readonly #opener: MessageOpener;
  readonly #pending = new Set<Promise<unknown>>();
  #stopped = false;

  constructor(
    private readonly settings: As2ReceiverSettings,
    private readonly core: CoreClient,
    private readonly store: PayloadStore,
    private readonly identification: string,
    /** Certificate chain and key: the server speaks HTTPS; absent: plain HTTP. */
    tlsOptions?: tls.SecureContextOptions,
  ) {
    this.#contexts = new InboundContexts(core);
    this.#opener = new MessageOpener(store);
    const options = { maxHeaderSize: 64 * 1024 };
    const handle = (req: http.IncomingMessage, res: http.ServerResponse) => this.#handle(req, res);
    if (tlsOptions) {
      this.#server = https.createServer({ ...options, ...tlsOptions }, handle);
      // Failed handshakes (plain HTTP to this port, scanners, a partner trusting another
      // certificate) are the partner's to fix; debug keeps them out of everyday logs.
      this.#server.on('tlsClientError', (error: NodeJS.ErrnoException, socket: tls.TLSSocket) => {
        core.log('debug', 'a TLS handshake failed', { error: error.code ?? error.message });
        if (error.code === 'ERR_SSL_HTTP_REQUEST') this.#answerPlainHttp(socket);
      });
    } else {
      this.#server = http.createServer(options, handle);
    }
    this.#server.headersTimeout = 60_000;
    this.#server.requestTimeout = 0;
  }

  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.settings.port, this.settings.host, () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
  }

  /**
   * A partner configured with http:// for this HTTPS port gets a 400 that says so, as web
   * servers answer, instead of a reset connection that tells it nothing. The answer goes out
   * on the TCP connection under the failed TLS socket: Node keeps it as `_parent` and offers no
   * public way to it; without it the connection is reset as before.
   */
  #answerPlainHttp(socket: tls.TLSSocket): void {
    const raw = (socket as tls.TLSSocket & { _parent?: unknown })._parent;
    if (!(raw instanceof net.Socket) || !raw.writable) return;
    const body = 'This port speaks HTTPS: send the AS2 message to an https:// address\n';
    raw.end(
      [
        'HTTP/1.1 400 Bad Request',
        `Server: ${this.identification}`,
        'Content-Type: text/plain; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  }

  #send(res: http.ServerResponse, answer: Answer): void {
    res.writeHead(answer.status, {
      ...answer.headers,
      Server: this.identification,
      'Content-Length': String(answer.body.length),
    });
    res.end(answer.body);
  }

  #handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const text = (status: number, message: string): Answer => ({
      status,
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
      body: Buffer.from(`${message}\n`),
    });
    const path = (req.url ?? '/').split('?')[0];
    if (path !== this.settings.path) return this.#send(res, text(404, 'Not an AS2 address'));
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return this.#send(res, text(405, 'AS2 messages are sent with POST'));
    }
    const limit = this.settings.max_message_mib * 1024 * 1024;
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      res.setHeader('Connection', 'close');
      return this.#send(res, text(413, `Messages are limited to ${this.settings.max_message_mib} MiB`));
    }
    const tooLarge = () => {
      res.setHeader('Connection', 'close');
      this.#send(res, text(413, `Messages are limited to ${this.settings.max_message_mib} MiB`));
      req.destroy();
    };
    const work = readBody(req, {
      limit,
      spillFromBytes: largeFromBytes,
      store: this.store,
      // Receipts are small and read in memory; a large one is kept there like before.
      keepInMemory: (head) => looksLikeReceipt({ headers: req.headers, rawHeaders: [], body: head }),
    }).then(async (body) => {
      switch (body.kind) {
        case 'aborted':
          return;
        case 'too-large':
          return tooLarge();
        case 'ended-early':
          return this.#send(res, text(400, 'The body ended early'));
        case 'memory':
        case 'stored':
          break;
        default: {
          const never: never = body;
          throw new Error(`unknown body ${String(never)}`);
        }
      }
      const incoming: Incoming | StoredIncoming =
        body.kind === 'memory'
          ? { headers: req.headers, rawHeaders: req.rawHeaders, body: body.bytes }
          : {
              headers: req.headers,
              rawHeaders: req.rawHeaders,
              stored: { messageId: body.messageId, bytes: body.bytes },
            };
      try {
        const answer = await this.#process(incoming);
        this.#send(res, answer);
        if (answer.asyncReceipt) this.#sendLater(answer.asyncReceipt.address, answer.asyncReceipt.receipt);
      } catch (error) {
        // Nothing was recorded for a stored body that failed: its stages go.
        if ('stored' in incoming) await this.store.removeMessage(incoming.stored.messageId).catch(() => {});
        throw error;
      }
    });
    this.#track(
      work.catch((error: unknown) => {
        this.core.log('error', 'receiving an AS2 message failed', { error: String(error) });
        if (!res.headersSent) this.#send(res, text(500, 'The message could not be taken; send it again'));
      }),
    );
  }

  #process(incoming: Incoming | StoredIncoming): Promise<Answer> {
    if (!('stored' in incoming) && looksLikeReceipt(incoming))
      return receiveReceipt(this.core, this.store, incoming);
    return receiveMessage(
      {
        core: this.core,
        store: this.store,
        contexts: this.#contexts,
        opener: this.#opener,
        identification: this.identification,
        maxBytes: this.settings.max_message_mib * 1024 * 1024,
      },
      incoming,
    );
  }

  #sendLater(address: string, receipt: Parameters<typeof sendAsyncReceipt>[1]): void {
    const work = sendAsyncReceipt(address, receipt, this.identification, () => this.#stopped).then(
      (problem) => {
        if (problem)
          this.core.log('warn', 'an asynchronous receipt could not be delivered', { address, problem });
      },
    );
    this.#track(work);
  }

  #track(work: Promise<unknown>): void {
    this.#pending.add(work);
    void work.finally(() => this.#pending.delete(work));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeIdleConnections();
    });
    await Promise.allSettled([...this.#pending]);
    await this.#opener.close();
  }
}
