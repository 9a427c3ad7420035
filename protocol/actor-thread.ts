/**
 * The supervisor's side of one actor thread: starting it with the ready/init-failed
 * handshake, requests in both directions with their pending answers, and the end of the
 * thread, expected (a stop) or not (a crash). Every pending request is rejected with a
 * code when the thread ends.
 */
import { Worker } from 'node:worker_threads';
import { ChannelError, channelErrors, Envelope, toWireError, type WireError } from './envelope.js';

export interface ActorThreadOptions {
  entry: URL;
  workerData: unknown;
  /** How long the actor may take to answer `ready`. */
  startTimeoutMs: number;
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

function duration(ms: number): string {
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
    this.#exited = new Promise((resolve) => this.#worker.once('exit', resolve));
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
        void this.#worker.terminate();
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

  #post(message: Envelope): void {
    if (this.#alive) this.#worker.postMessage(message);
  }

  get alive(): boolean {
    return this.#alive;
  }

  request(body: unknown): Promise<unknown> {
    if (!this.#alive)
      return Promise.reject(new ChannelError(channelErrors.workerExited, 'the actor thread ended'));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#post({ kind: 'request', id, body });
    });
  }

  event(body: unknown): void {
    this.#post({ kind: 'event', body });
  }

  /**
   * Asks the actor to stop and waits up to `timeoutMs`; then ends the thread whatever it
   * did. True when the actor answered in time.
   */
  async stop(timeoutMs: number): Promise<boolean> {
    this.#stopping = true;
    if (!this.#alive) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const answered = this.request({ type: 'stop' }).then(
      () => true,
      () => false,
    );
    const clean = await Promise.race([answered, timeout, this.#exited.then(() => false)]);
    clearTimeout(timer);
    await this.#worker.terminate();
    await this.#exited;
    return clean;
  }

  /** Ends the thread at once (process shutdown after the grace period). */
  async terminate(): Promise<void> {
    this.#stopping = true;
    await this.#worker.terminate();
    await this.#exited;
  }
}
