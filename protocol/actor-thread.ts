/**
 * The supervisor's side of one actor thread: starting it with the ready/init-failed
 * handshake, requests in both directions with their pending answers, and the end of the
 * thread, expected (a stop) or not (a crash). Every pending request is rejected with a
 * code when the thread ends.
 *
 * Every wait here has a deadline, including the wait for the thread to end once terminated: a
 * thread busy in native code (Node 20's recursive mkdir under /proc) never ends, and a caller
 * that waited for it would wait for ever. Such a thread is left behind, still registered in
 * `threads`, so its owner can tell that the process cannot end by itself.
 */
import { Worker, type TransferListItem } from 'node:worker_threads';
import { ChannelError, channelErrors, Envelope, toWireError, type WireError } from './envelope.js';

export interface ActorThreadOptions {
  entry: URL;
  workerData: unknown;
  /** How long the actor may take to answer `ready`. */
  startTimeoutMs: number;
  /** How long to wait for the thread to end once it is terminated; then it is left behind. */
  endTimeoutMs: number;
  /** Holds the thread from its spawn until it has ended (its owner's register of live threads). */
  threads?: Set<ActorThread>;
  /** Requests from the actor (accept, claim, result); the answer or a thrown error goes back. */
  onRequest(body: unknown): Promise<unknown>;
  onEvent(body: unknown): void;
  /** The thread ended after it was ready; `expected` when a stop asked for it. */
  onExit(end: { expected: boolean; reason: string }): void;
}

export class StartFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'StartFailure';
  }
}

/** A deadline as the reasons in answers and logs write it: `400 ms`, `15 s`. */
export function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

interface Pending {
  resolve(body: unknown): void;
  reject(error: Error): void;
}

/**
 * Under tsx (sources), a worker cannot load a .ts file by URL on Node 20; a small eval'd
 * module imports it through tsx instead. Compiled builds load the .js file directly.
 */
function spawnWorker(entry: URL, workerData: unknown): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, { workerData });
  // Resolved here: an eval'd worker would look for tsx from the working directory.
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const code = `import(${JSON.stringify(tsxApi)}).then(({ tsImport }) => tsImport(${JSON.stringify(entry.href)}, ${JSON.stringify(import.meta.url)}))`;
  return new Worker(code, { eval: true, workerData });
}

export class ActorThread {
  readonly #worker: Worker;
  readonly #options: ActorThreadOptions;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #ready = false;
  #alive = true;
  #stopping = false;
  #lastError: string | undefined;
  #initFailure: WireError | undefined;
  #exited: Promise<number>;

  private constructor(options: ActorThreadOptions) {
    this.#options = options;
    this.#worker = spawnWorker(options.entry, options.workerData);
    options.threads?.add(this);
    this.#exited = new Promise((resolve) => this.#worker.once('exit', resolve));
    void this.#exited.then(() => options.threads?.delete(this));
  }

  /** Starts the thread and resolves once it is ready; rejects with StartFailure otherwise. */
  static start(options: ActorThreadOptions): Promise<ActorThread> {
    const thread = new ActorThread(options);
    return thread.#handshake();
  }

  #handshake(): Promise<ActorThread> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#initFailure = {
          code: 'START_TIMEOUT',
          message: `did not become ready within ${duration(this.#options.startTimeoutMs)}`,
        };
        // Answered now, not when the thread has ended: that may be never.
        this.#stopping = true;
        reject(new StartFailure(this.#initFailure.code, this.#initFailure.message));
        void this.#end();
      }, this.#options.startTimeoutMs);
      this.#worker.on('message', (raw: unknown) => {
        const parsed = Envelope.safeParse(raw);
        if (!parsed.success) {
          this.#violation('sent a message outside the channel protocol');
          return;
        }
        const message = parsed.data;
        if (!this.#ready) {
          if (message.kind === 'ready') {
            this.#ready = true;
            clearTimeout(timer);
            resolve(this);
          } else if (message.kind === 'init-failed') {
            this.#initFailure = message.error;
          } else {
            this.#violation(`sent ${message.kind} before ready`);
          }
          return;
        }
        this.#receive(message);
      });
      this.#worker.on('error', (error: Error) => {
        this.#lastError = error?.message ?? String(error);
      });
      this.#worker.once('exit', (code: number) => {
        this.#alive = false;
        clearTimeout(timer);
        const reason = this.#initFailure?.message ?? this.#lastError ?? `the thread exited with code ${code}`;
        for (const pending of this.#pending.values()) {
          pending.reject(new ChannelError(channelErrors.workerExited, `the actor thread ended: ${reason}`));
        }
        this.#pending.clear();
        if (!this.#ready) {
          reject(new StartFailure(this.#initFailure?.code ?? 'START_FAILED', reason));
          return;
        }
        this.#options.onExit({ expected: this.#stopping, reason });
      });
    });
  }

  #violation(what: string): void {
    this.#lastError = `the actor ${what}`;
    void this.#worker.terminate();
  }

  #receive(message: Envelope): void {
    switch (message.kind) {
      case 'request':
        this.#options.onRequest(message.body).then(
          (body) => this.#post({ kind: 'response', id: message.id, ok: true, body }),
          (error: unknown) =>
            this.#post({ kind: 'response', id: message.id, ok: false, error: toWireError(error) }),
        );
        return;
      case 'response': {
        const pending = this.#pending.get(message.id);
        if (!pending) return;
        this.#pending.delete(message.id);
        if (message.ok) pending.resolve(message.body);
        else pending.reject(new ChannelError(message.error.code, message.error.message));
        return;
      }
      case 'event':
        this.#options.onEvent(message.body);
        return;
      case 'ready':
      case 'init-failed':
        this.#violation(`sent ${message.kind} twice`);
        return;
      default: {
        const never: never = message;
        throw new Error(`unhandled ${String(never)}`);
      }
    }
  }

  #post(message: Envelope, transfer?: TransferListItem[]): void {
    if (this.#alive) this.#worker.postMessage(message, transfer);
  }

  get alive(): boolean {
    return this.#alive;
  }

  /** Asks the actor; with `timeoutMs`, gives up after that long (TIMED_OUT) and forgets the question. */
  request(body: unknown, timeoutMs?: number): Promise<unknown> {
    if (!this.#alive)
      return Promise.reject(new ChannelError(channelErrors.workerExited, 'the actor thread ended'));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              this.#pending.delete(id);
              reject(new ChannelError(channelErrors.timedOut, `no answer within ${duration(timeoutMs)}`));
            }, timeoutMs);
      const settle =
        <V>(done: (value: V) => void) =>
        (value: V) => {
          clearTimeout(timer);
          done(value);
        };
      this.#pending.set(id, { resolve: settle(resolve), reject: settle(reject) });
      this.#post({ kind: 'request', id, body });
    });
  }

  /** `transfer`: what moves to the thread with the event (a MessagePort). */
  event(body: unknown, transfer?: TransferListItem[]): void {
    this.#post({ kind: 'event', body }, transfer);
  }

  /**
   * Asks the actor to stop and waits up to `timeoutMs`; then ends the thread whatever it
   * did. True when the actor answered in time. `alive` tells afterwards whether the thread
   * ended within its end time.
   */
  async stop(timeoutMs: number): Promise<boolean> {
    this.#stopping = true;
    if (!this.#alive) return true;
    const answered = this.request({ type: 'stop', within_ms: Math.floor(timeoutMs) }).then(
      () => true,
      () => false,
    );
    const clean = await within(timeoutMs, Promise.race([answered, this.#exited.then(() => false)]), false);
    await this.#end();
    return clean;
  }

  /** Ends the thread at once (process shutdown after the grace period); see `alive` afterwards. */
  async terminate(): Promise<void> {
    this.#stopping = true;
    await this.#end();
  }

  /** Terminates the thread and waits for its end, but never longer than the end time. */
  async #end(): Promise<void> {
    if (!this.#alive) return;
    await within(
      this.#options.endTimeoutMs,
      Promise.all([this.#worker.terminate().catch(() => 0), this.#exited]),
      undefined,
    );
  }
}

/** The promise's value, or `otherwise` once `ms` have passed. */
async function within<T, O>(ms: number, promise: Promise<T>, otherwise: O): Promise<T | O> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<O>((resolve) => (timer = setTimeout(() => resolve(otherwise), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
