/**
 * What every actor's worker.ts shares: the thread guard, the ready/init-failed handshake,
 * and a typed client for asking the core. An actor's own module supplies `init`, which
 * parses its configuration and opens its resources, and gets back nothing but this channel.
 */
import { isMainThread, parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { ActorEvent } from '../core-protocol.js';
import { isAs2Request, parseAs2Answer, type As2Request } from '../as2-protocol.js';
import { parseNotifyAnswer, type NotifyRequest } from '../notify-protocol.js';
import type { AnswerTo } from '../questions.js';
import { ChannelError, channelErrors, Envelope, toWireError } from '../envelope.js';
import {
  HostEvent,
  HostRequest,
  type CheckAnswer,
  type CheckConnectionRequest,
  type HostAnswerTo,
} from '../host-protocol.js';
import { ActorStartData, pinoLevelNumbers, type LogLevel } from './start-data.js';
import { poolUsage } from '../metrics/pool-probe.js';
import { MetricTally } from '../metrics/tally.js';
import { noMetrics, type MetricsPort } from '../metrics/port.js';
import { nameThisThread } from './thread-name.js';
import { limits } from '../../limits/limits.js';

/**
 * What an actor has of the main thread: events it tells, questions it asks. A target's claims
 * and results and a source's acceptances are not here: they run on the thread's own database
 * connections (actors/shared/delivery-port.ts, acceptance-port.ts).
 */
export interface CoreClient {
  log(
    level: Extract<ActorEvent, { type: 'log' }>['level'],
    msg: string,
    fields?: Record<string, unknown>,
  ): void;
  /** Tells the core the payload store stopped taking stages, or takes them again. */
  storage(ok: boolean, problem?: string): void;
  /** Tells the core a target's partner failed an attempt as an unreachable one does, or took one. */
  reach(ok: boolean, partner?: string, error?: string): void;
  /** Tells the core a server presented another host key than the pinned one (refused). */
  hostKeyChanged(server: string, presented: string, pinned: string): void;
  /** Tells the core the database did not answer one of the actor's statements, or answers again. */
  database(ok: boolean, what: string, error?: string): void;
  /** Counts for the process's metrics; sent to the main thread in batches. */
  metrics: MetricsPort;
  /** The AS2 actors' and notifiers' questions; each answer is checked against its question's schema. */
  ask<R extends As2Request | NotifyRequest>(request: R): Promise<AnswerTo<R>>;
}

export interface Actor {
  /** Deliveries are queued for this instance. */
  onWork?(): void;
  /** A source: a channel to hand documents to `target`, a target running in this process (handoff-protocol.ts). */
  onHandoffTo?(target: string, port: MessagePort): void;
  /** A target: a channel on which `source` hands it documents. */
  onHandoffFrom?(source: string, port: MessagePort): void;
  /**
   * Finish or give up the work in hand and release every resource; `withinMs`: the time left
   * before the supervisor ends the thread, when it said.
   */
  stop(withinMs?: number): Promise<void>;
  /** The way to a partner, checked as this actor would send to it (an AS2 sender). */
  checkConnection?(request: CheckConnectionRequest): Promise<CheckAnswer>;
}

export type ActorInit = (start: ActorStartData, core: CoreClient) => Promise<Actor>;

/** An error of the actor's start, carried to the supervisor with a code. */
export class InitError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'InitError';
  }
}

class Channel {
  readonly #pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  #nextId = 1;
  actor: Actor | undefined;
  /** Set once `ready` went out: the supervisor takes no event before it. */
  ready = false;
  readonly metrics = new MetricTally(() => this.sendMetrics());
  /** False when the process exports no metrics: nothing is counted or sent. */
  counting = true;

  constructor(private readonly port: MessagePort) {
    port.on('message', (raw: unknown) => this.#receive(raw));
    // Unref'd: the counts never keep a thread alive; a stop sends the last of them.
    setInterval(() => this.sendMetrics(), limits.metricsIntervalMs).unref();
  }

  /** The pool's state last sent, to send it again only when it changed (or with counts). */
  #poolSent = '';

  /** Sends what was counted since the last batch, and the thread's connections, if anything. */
  sendMetrics(): void {
    if (!this.ready || !this.counting) return;
    const batch = this.metrics.take();
    const pool = poolUsage();
    const poolNow = pool ? `${pool.in_use}/${pool.idle}/${pool.waiting}` : '';
    if (!batch && poolNow === this.#poolSent) return;
    this.#poolSent = poolNow;
    this.post({
      kind: 'event',
      body: { type: 'metrics', batch: { ...(batch ?? { counters: [], observations: [] }), pool } },
    });
  }

  /**
   * Events an actor sent while it started (a log line of what its start found, a database
   * outage): the supervisor takes no event before `ready` and would end the thread for one, so
   * they wait here and follow `ready` in order.
   */
  readonly #early: Envelope[] = [];

  post(message: Envelope): void {
    if (!this.ready && message.kind === 'event') this.#early.push(message);
    else this.port.postMessage(message);
  }

  /** Sends `ready`, then the events sent before it. */
  markReady(): void {
    this.port.postMessage({ kind: 'ready' } satisfies Envelope);
    this.ready = true;
    for (const message of this.#early.splice(0)) this.port.postMessage(message);
  }

  request(body: unknown): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.post({ kind: 'request', id, body });
    });
  }

  /** The answer to a question of the supervisor (host-protocol.ts). */
  async #answer(request: HostRequest): Promise<HostAnswerTo<HostRequest>> {
    switch (request.type) {
      case 'stop':
        await this.actor?.stop(request.within_ms);
        this.sendMetrics();
        return { type: 'stopped' };
      case 'check_connection': {
        if (!this.actor?.checkConnection)
          throw new ChannelError(channelErrors.notAnswered, 'This actor does not check connections');
        return this.actor.checkConnection(request);
      }
      default: {
        const never: never = request;
        throw new Error(`unhandled ${String(never)}`);
      }
    }
  }

  #receive(raw: unknown): void {
    const parsed = Envelope.safeParse(raw);
    if (!parsed.success)
      throw new ChannelError(channelErrors.badMessage, 'The supervisor sent a bad message');
    const message = parsed.data;
    switch (message.kind) {
      case 'response': {
        const pending = this.#pending.get(message.id);
        this.#pending.delete(message.id);
        if (message.ok) pending?.resolve(message.body);
        else pending?.reject(new ChannelError(message.error.code, message.error.message));
        return;
      }
      case 'request': {
        this.#answer(HostRequest.parse(message.body)).then(
          (body) => this.post({ kind: 'response', id: message.id, ok: true, body }),
          (error: unknown) =>
            this.post({ kind: 'response', id: message.id, ok: false, error: toWireError(error) }),
        );
        return;
      }
      case 'event': {
        const event = HostEvent.parse(message.body);
        if (event.type === 'work') this.actor?.onWork?.();
        else if (event.type === 'handoff_to') {
          if (this.actor?.onHandoffTo) this.actor.onHandoffTo(event.target, event.port);
          else event.port.close();
        } else if (event.type === 'handoff_from') {
          if (this.actor?.onHandoffFrom) this.actor.onHandoffFrom(event.source, event.port);
          else event.port.close();
        }
        return;
      }
      case 'ready':
      case 'init-failed':
        return;
      default: {
        const never: never = message;
        throw new Error(`unhandled ${String(never)}`);
      }
    }
  }
}

/**
 * The actor's side of the core. Log lines below the process's level (`logLevel`) are dropped
 * here, not posted.
 */
function coreClient(channel: Channel, logLevel: LogLevel): CoreClient {
  const lowest = pinoLevelNumbers[logLevel];
  return {
    log: (level, msg, fields) => {
      if (pinoLevelNumbers[level] >= lowest)
        channel.post({ kind: 'event', body: { type: 'log', level, msg, fields } });
    },
    storage: (ok, problem) => channel.post({ kind: 'event', body: { type: 'storage', ok, problem } }),
    reach: (ok, partner, error) =>
      channel.post({
        kind: 'event',
        body: { type: 'reach', ok, ...(partner ? { partner } : {}), ...(error ? { error } : {}) },
      }),
    hostKeyChanged: (server, presented, pinned) =>
      channel.post({ kind: 'event', body: { type: 'host_key', server, presented, pinned } }),
    database: (ok, what, error) =>
      channel.post({ kind: 'event', body: { type: 'database', ok, what, ...(error ? { error } : {}) } }),
    metrics: channel.counting ? channel.metrics : noMetrics,
    ask: async <R extends As2Request | NotifyRequest>(request: R) => {
      const answer = await channel.request(request);
      // Each table of questions checks the answers to its own.
      return (
        isAs2Request(request)
          ? parseAs2Answer(request, answer)
          : parseNotifyAnswer(request as NotifyRequest, answer)
      ) as AnswerTo<R>;
    },
  };
}

/** The body of every actor's worker.ts: `runActor(async (start, core) => …)`. */
export function runActor(init: ActorInit): void {
  if (isMainThread || !parentPort)
    throw new Error('An actor runs in a worker thread started by the supervisor');
  const channel = new Channel(parentPort);
  const start = ActorStartData.safeParse(workerData);
  if (!start.success) {
    channel.post({
      kind: 'init-failed',
      error: { code: 'BAD_START_DATA', message: 'The start data is not valid' },
    });
    process.exit(1);
  }
  channel.counting = start.data.metrics;
  nameThisThread(
    start.data.thread === undefined ? start.data.type : `${start.data.type}-${start.data.thread}`,
  );
  init(start.data, coreClient(channel, start.data.log_level)).then(
    (actor) => {
      channel.actor = actor;
      channel.markReady();
    },
    (error: unknown) => {
      // A child that failed to initialise cannot recover; exit so the thread does not linger.
      const wire = toWireError(error);
      channel.post({
        kind: 'init-failed',
        error: { ...wire, code: wire.code === 'HANDLER_FAILED' ? 'INIT_FAILED' : wire.code },
      });
      process.exit(1);
    },
  );
}
