/**
 * The receiver's HTTP or HTTPS server: POSTs to its path are AS2 messages or asynchronous
 * receipts. Every answer carries the Server header of docs/api/settings.md. The sender is identified from
 * the headers before the body is read: only a known partner's body is stored (large ones as
 * they arrive, read-body.ts), a stranger's is dropped but for a short prefix. Bodies over
 * max_message_mib, or the partner's own limit, are refused with 413 (before reading them when
 * Content-Length says so) and nothing of them stays stored; a partner or client address over
 * its in-flight limits gets 503 with Retry-After. A failure is a 500 with no detail, never a crash.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type tls from 'node:tls';
import type { SourceCore } from '../shared/acceptance-port.js';
import { DatabaseAwayLog } from './database-away-log.js';
import type { PayloadStore } from '../../storage/payloads/store.js';
import type { As2ReceiverSettings } from './config.js';
import { InboundContexts } from './contexts.js';
import { MessageOpener } from './open-pool.js';
import { as2Name, headerValue } from '../as2-shared/headers.js';
import { InFlight, type Crossed } from './in-flight.js';
import { lingerThenClose } from './linger.js';
import { readBody, readPrefix } from './read-body.js';
import { sendAsyncReceipt } from './receipt.js';
import { looksLikeReceipt, receiveReceipt } from './receipts-in.js';
import type { HandoffGiver } from '../shared/handoff-giver.js';
import { receiveMessage, type Answer, type Incoming, type StoredIncoming } from './receive.js';
import { HoldBack } from '../shared/hold-back.js';
import { ConnectionDrain } from '../shared/connection-drain.js';
import { isDatabaseAway } from '../../flow/actor-commands.js';
import { UncertainStages, type StoredOf } from '../shared/uncertain-stages.js';
import { limits } from '../../limits/limits.js';

const text = (status: number, message: string): Answer => ({
  status,
  headers: { 'Content-Type': 'text/plain; charset=utf-8' },
  body: Buffer.from(`${message}\n`),
});

const tooLarge = (mib: number, from = ''): Answer =>
  text(413, `Messages${from ? ` ${from}` : ''} are limited to ${Math.round(mib * 100) / 100} MiB`);

const mib = 1024 * 1024;

/** Content-Length as a number, null when absent (a chunked body). */
function declaredLength(req: http.IncomingMessage): number | null {
  const value = req.headers['content-length'];
  if (value === undefined) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}

export class As2ReceiverServer {
  readonly #server: http.Server | https.Server;
  readonly #contexts: InboundContexts;
  readonly #opener: MessageOpener;
  readonly #holdBack = new HoldBack(limits.receiverMaxQueuedDeliveries);
  readonly #pending = new Set<Promise<unknown>>();
  readonly #inFlight: InFlight;
  /** The receiver's max_message_mib in bytes. */
  readonly #limit: number;
  #stopped = false;
  readonly #connections: ConnectionDrain;
  /** Stopping: requests under way finish, new ones are answered 503 with Retry-After. */
  #draining = false;
  /** Messages are answered 503 because the database does not take them: told once, and once when it does again. */
  readonly #databaseAway: DatabaseAwayLog;
  /** Stages of acceptances the database failed, kept until it can say whether they committed. */
  readonly #uncertain: UncertainStages;
  #lastConnectionAt = 0;

  constructor(
    private readonly settings: As2ReceiverSettings,
    private readonly core: SourceCore,
    private readonly store: PayloadStore,
    private readonly identification: string,
    /** Certificate chain and key: the server speaks HTTPS; absent: plain HTTP. */
    tlsOptions?: tls.SecureContextOptions,
    /** Targets of this process that take documents before the acceptance (handoff-giver.ts). */
    private readonly handoff?: HandoffGiver,
    /** Which messages are stored (acceptance-port.ts), for stages an acceptance left uncertain. */
    storedOf: StoredOf = async () => null,
    /** Threads of this receiver listening on its port, this one included (listener-plan.ts). */
    listeners = 1,
  ) {
    this.#uncertain = new UncertainStages(store, storedOf);
    this.#contexts = new InboundContexts(core);
    this.#databaseAway = new DatabaseAwayLog((level, msg, fields) => core.log(level, msg, fields));
    this.#opener = new MessageOpener(store, settings.large_messages_budget_mib * mib, listeners);
    this.#limit = settings.max_message_mib * mib;
    this.#inFlight = new InFlight({
      requestsPerPartner: settings.max_requests_per_partner,
      bytesPerPartner: settings.max_in_flight_mib_per_partner * mib,
      requestsPerAddress: settings.max_requests_per_address,
      bytesPerAddress: settings.max_in_flight_mib_per_address * mib,
    });
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
    this.#server.on('connection', () => (this.#lastConnectionAt = Date.now()));
    this.#connections = new ConnectionDrain(this.#server as http.Server);
    this.#server.headersTimeout = 60_000;
    this.#server.requestTimeout = 0;
  }

  /**
   * `reusePort`: the port is listened on with SO_REUSEPORT, shared with the receiver's other
   * listener threads and with another pier process on this machine (listener-plan.ts); only
   * sockets that all ask for it share a port, so another program's still makes this fail.
   */
  listen(reusePort = false): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      // `reusePort` is Node 22.12's; the types of the Node this is built with may not know it.
      const options = { port: this.settings.port, host: this.settings.host, reusePort };
      this.#server.listen(options as net.ListenOptions, () => {
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
    // While stopping, no connection is kept for a next request that would find the port closed.
    if (this.#draining) res.setHeader('Connection', 'close');
    res.writeHead(answer.status, {
      ...answer.headers,
      Server: this.identification,
      'Content-Length': String(answer.body.length),
    });
    res.end(answer.body);
  }

  #handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (this.#draining) {
      res.setHeader('Retry-After', String(limits.drainingRetryAfterSeconds));
      return this.#refuse(res, text(503, 'The receiver is stopping; send again later'), req);
    }
    const path = (req.url ?? '/').split('?')[0];
    if (path !== this.settings.path) return this.#send(res, text(404, 'Not an AS2 address'));
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return this.#send(res, text(405, 'AS2 messages are sent with POST'));
    }
    const declared = declaredLength(req);
    if (declared !== null && declared > this.#limit)
      return this.#refuse(res, tooLarge(this.settings.max_message_mib), req);
    const began = performance.now();
    this.#track(
      this.#take(req, res, declared, began).catch((error: unknown) => {
        // Nothing was committed that the sender could lose by sending again (a commit whose
        // answer was lost makes the next copy a duplicate, answered with this one's receipt):
        // 503 tells it to, as HTTP says for a service that is away for a while.
        if (isDatabaseAway(error)) {
          this.#databaseAway.failed(began, error);
          if (!res.headersSent) {
            res.setHeader('Retry-After', String(limits.databaseRetryAfterSeconds));
            this.#send(res, text(503, 'The database is not reachable now; send the message again later'));
          }
          return;
        }
        this.core.log('error', 'receiving an AS2 message failed', { error: String(error) });
        if (!res.headersSent) this.#send(res, text(500, 'The message could not be taken; send it again'));
      }),
    );
  }

  /**
   * Who sends, from the headers, before any of the body is read: a known partner's body is
   * taken up to its own limit and stored as it arrives; anyone else's (an unknown AS2-From or
   * AS2-To, or headers that name no one) is read and dropped but for its first bytes, so a
   * stranger cannot fill the disk. Both count against what their address (and the partner)
   * may have in flight.
   */
  async #take(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    declared: number | null,
    /** When the request came (performance.now()), for DatabaseAwayLog. */
    began: number,
  ): Promise<void> {
    const as2From = as2Name(headerValue(req.headers, 'as2-from'));
    const as2To = as2Name(headerValue(req.headers, 'as2-to'));
    const named = as2From && as2To && as2From.length <= 998 && as2To.length <= 998;
    const context = named ? await this.#contexts.get(as2To, as2From) : null;
    const partner = context?.found ? context.partner : null;
    const partnerLimit = context?.found ? context.max_message_bytes : null;
    if (partnerLimit !== null && partnerLimit < this.#limit && declared !== null && declared > partnerLimit)
      return this.#refuse(res, tooLarge(partnerLimit / 1024 / 1024, `from ${as2From}`), req);
    const entry = this.#inFlight.enter(req.socket.remoteAddress ?? 'unknown', partner, declared ?? 0);
    if (typeof entry === 'string') return this.#busy(res, entry, req);
    try {
      // Counted as they arrive only when no length was declared (the declared one is taken already).
      let crossed: Crossed | null = null;
      const count = declared === null ? (bytes: number) => (crossed = entry.grow(bytes)) === null : undefined;
      if (partner === null) return await this.#takeFromStranger(req, res, count, () => crossed, began);
      const limit = partnerLimit !== null ? Math.min(partnerLimit, this.#limit) : this.#limit;
      const body = await readBody(req, {
        limit,
        spillFromBytes: limits.largeBodyFromBytes,
        store: this.store,
        // Receipts are small and read in memory; a large one is kept there like before.
        keepInMemory: (head) => looksLikeReceipt({ headers: req.headers, rawHeaders: [], body: head }),
        ...(count ? { count } : {}),
      });
      switch (body.kind) {
        case 'aborted':
          return;
        case 'too-large':
          return this.#refuse(
            res,
            tooLarge(limit / 1024 / 1024, limit < this.#limit ? `from ${as2From}` : ''),
            req,
          );
        case 'busy':
          return this.#busy(res, crossed ?? 'partner bytes', req);
        case 'ended-early':
          return this.#send(res, text(400, 'The body ended early'));
        case 'memory':
          return await this.#answer(
            res,
            { headers: req.headers, rawHeaders: req.rawHeaders, body: body.bytes },
            began,
          );
        case 'stored':
          return await this.#answer(
            res,
            {
              headers: req.headers,
              rawHeaders: req.rawHeaders,
              stored: { messageId: body.messageId, bytes: body.bytes },
            },
            began,
          );
        default: {
          const never: never = body;
          throw new Error(`unknown body ${String(never)}`);
        }
      }
    } finally {
      entry.leave();
    }
  }

  /**
   * A body from no known partner: read to its end (so the sender gets its answer, a refusal
   * naming the unknown party) keeping the first `limits.strangerPrefixBytes`, which become the
   * message's `received` stage; protocols.as2 says how long the body was.
   */
  async #takeFromStranger(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    count: ((bytes: number) => boolean) | undefined,
    crossed: () => Crossed | null,
    began: number,
  ): Promise<void> {
    const body = await readPrefix(req, { limit: this.#limit, keep: limits.strangerPrefixBytes, count });
    switch (body.kind) {
      case 'aborted':
        return;
      case 'too-large':
        return this.#refuse(res, tooLarge(this.settings.max_message_mib), req);
      case 'busy':
        return this.#busy(res, crossed() ?? 'address bytes', req);
      case 'ended-early':
        return this.#send(res, text(400, 'The body ended early'));
      case 'prefix':
        break;
      default: {
        const never: never = body;
        throw new Error(`unknown body ${String(never)}`);
      }
    }
    const whole = body.total === body.bytes.length;
    const incoming: Incoming = {
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      body: body.bytes,
      ...(whole ? {} : { truncatedFrom: body.total }),
    };
    if (!whole && looksLikeReceipt(incoming))
      return this.#send(res, text(413, `Receipts are limited to ${limits.strangerPrefixBytes / 1024} KiB`));
    await this.#answer(res, incoming, began);
  }

  async #answer(res: http.ServerResponse, incoming: Incoming | StoredIncoming, began: number): Promise<void> {
    try {
      const answer = await this.#process(incoming);
      this.#databaseAway.taken(began);
      this.#send(res, answer);
      if (answer.asyncReceipt) this.#sendLater(answer.asyncReceipt);
    } catch (error) {
      // Nothing was recorded for a stored body that failed: its stages go, unless its acceptance
      // failed with the database and may have committed (uncertain-stages.ts).
      if ('stored' in incoming && !this.#uncertain.has(incoming.stored.messageId))
        await this.store.removeMessage(incoming.stored.messageId).catch(() => {});
      throw error;
    }
  }

  /** A refusal sent before or while the body arrives: the connection closes after it. */
  #refuse(res: http.ServerResponse, answer: Answer, req?: http.IncomingMessage): void {
    res.setHeader('Connection', 'close');
    this.#send(res, answer);
    if (req) lingerThenClose(req);
  }

  #busy(res: http.ServerResponse, crossed: Crossed, req?: http.IncomingMessage): void {
    res.setHeader('Retry-After', String(limits.busyRetryAfterSeconds));
    const who = crossed.startsWith('partner') ? 'this partner' : 'this address';
    const what = crossed.endsWith('bytes') ? 'bytes of messages' : 'messages';
    this.#refuse(res, text(503, `Too many ${what} in progress from ${who}; send again later`), req);
  }

  async #process(incoming: Incoming | StoredIncoming): Promise<Answer> {
    if (!('stored' in incoming) && looksLikeReceipt(incoming))
      return receiveReceipt(this.core, this.store, incoming);
    const leave = this.#opener.arrive();
    try {
      return await this.#receive(incoming);
    } finally {
      leave();
    }
  }

  #receive(incoming: Incoming | StoredIncoming): Promise<Answer> {
    return receiveMessage(
      {
        core: this.core,
        store: this.store,
        contexts: this.#contexts,
        opener: this.#opener,
        identification: this.identification,
        maxBytes: this.#limit,
        readEdiEnvelope: this.settings.read_edi_envelope,
        holdBack: this.#holdBack,
        stopping: () => this.#stopped,
        ...(this.handoff ? { handoff: this.handoff } : {}),
        uncertain: this.#uncertain,
      },
      incoming,
    );
  }

  #sendLater({ address, receipt, messageId }: NonNullable<Answer['asyncReceipt']>): void {
    const work = sendAsyncReceipt(address, receipt, this.identification, () => this.#stopped).then(
      (problem) => {
        if (problem)
          this.core.log('warn', 'an asynchronous receipt could not be delivered', {
            message_id: messageId,
            address,
            problem,
          });
      },
    );
    this.#track(work);
  }

  #track(work: Promise<unknown>): void {
    this.#pending.add(work);
    void work.finally(() => this.#pending.delete(work));
  }

  /**
   * Drains, then closes: connections without a request in hand (idle, or a request not fully
   * received) end at once; requests under way are answered (their messages recorded first), new
   * ones get 503 with Retry-After, so a sender is told to come back rather than cut off; then,
   * once no connection came for a moment, the port closes. All of it within `withinMs` (the
   * supervisor's deadline, PIER_SHUTDOWN_TIMEOUT): a little before it, whatever is still open
   * (a sender stalled mid-body) is ended, so the receiver stops by itself and its thread is not
   * ended by force.
   */
  async stop(withinMs?: number): Promise<void> {
    this.#stopped = true;
    this.#draining = true;
    const drainingSince = Date.now();
    const until =
      withinMs === undefined
        ? Infinity
        : drainingSince + withinMs - Math.min(limits.receiverStopMarginMs, withinMs / 5);
    this.#connections.start();
    await beforeOrAt(until, Promise.allSettled([...this.#pending]));
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      // Checked after the loop's poll phase, where connections waiting in the kernel's queue
      // are accepted: a busy thread's timer may fire late, with connections still queued.
      await new Promise((resolve) => setImmediate(resolve));
      const quiet = Date.now() - this.#lastConnectionAt >= limits.drainQuietMs;
      if (quiet || Date.now() - drainingSince >= limits.drainQuietMaxMs || Date.now() >= until) break;
    }
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeIdleConnections();
    await beforeOrAt(until, this.#connections.settled(until));
    this.#connections.destroyAll();
    // The requests whose connections just ended settle at once (their bodies fail).
    await beforeOrAt(Date.now() + limits.receiverStopMarginMs / 2, Promise.allSettled([...this.#pending]));
    await closed;
    await this.#opener.close();
  }
}

/** Waits for `work`, but not past `until` (epoch milliseconds). */
async function beforeOrAt(until: number, work: Promise<unknown>): Promise<void> {
  if (until === Infinity) {
    await work;
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    work,
    new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, until - Date.now())))),
  ]);
  clearTimeout(timer);
}
