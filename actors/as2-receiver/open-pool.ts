/**
 * Where a received message is opened (open-message.ts): on the receiver's own thread when it is
 * small and alone at the receiver, else in a pool of worker threads, one more than there are
 * cores. Decrypting, verifying, inflating and signing the receipt are most of a message's CPU (two
 * RSA-2048 private-key operations for a signed, encrypted message with a signed receipt); on the
 * receiver's own thread they were capped at one core, and a large message held up every other
 * partner's request.
 */
import os from 'node:os';
import { threadId } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { StoreSelection } from '../../storage/payloads/open-store.js';
import type { PayloadStore } from '../../storage/payloads/store.js';
import { ByteBudget } from './byte-budget.js';
import {
  openDocument,
  receiptOf,
  type OpenedDocument,
  type OpenResult,
  type OpenTask,
} from './open-message.js';
import { limits } from '../../limits/limits.js';

/**
 * What a pool thread gets: the task, how to open the payload store there, and the context by its
 * key. The context itself (certificates and keys as PEM, about 10 KiB) travels only when the
 * thread asks for it (`missingContext`): copied into every task, it was read, hashed and parsed
 * again on the other side for every message.
 */
export type PooledTask = Omit<OpenTask, 'context'> & {
  storage: StoreSelection;
  contextKey: string;
  context?: OpenTask['context'];
};

/** A pool thread's answer to a task whose context it has not seen: send it again with the context. */
export interface MissingContext {
  missingContext: true;
}

/** A key per context object: each one the receiver is given (every few seconds) is new. */
const contextKeys = new WeakMap<OpenTask['context'], string>();
let contextsSeen = 0;
const contextKeyOf = (context: OpenTask['context']): string => {
  let key = contextKeys.get(context);
  if (key === undefined) {
    key = `${process.pid}:${threadId}:${++contextsSeen}`;
    contextKeys.set(context, key);
  }
  return key;
};

/**
 * The compiled build runs the pool's task as JavaScript; the sources load it through tsx. The
 * path, not the URL: a module tsx loads into a thread carries a query (`?tsx-namespace=…`).
 */
const taskFile = new URL(import.meta.url).pathname.endsWith('.ts')
  ? './open-worker-sources.mjs'
  : './open-worker.js';

export class MessageOpener {
  readonly #pool: Piscina;
  /** Whether a pool thread has loaded the AS2 modules and answered. */
  #ready = false;
  /** Messages being opened now, here or in the pool. */
  #opening = 0;
  /** Messages at the receiver between their arrival and their answer (`arrive`). */
  #present = 0;
  /** Where messages were opened so far: on the receiver's thread or in the pool. */
  readonly opened = { here: 0, pool: 0 };
  /** Most messages the pool opens at once: one per thread. */
  get poolThreads(): number {
    return this.#pool.options.maxThreads;
  }
  /** Settles when a pool thread has loaded the AS2 modules (or failed to). */
  readonly ready: Promise<void>;
  /** Large messages opened at once share it: memory does not grow with how many arrive together. */
  readonly #budget: ByteBudget;

  constructor(
    private readonly store: PayloadStore,
    largeMessagesBudgetBytes: number,
    /** Threads of the receiver listening on its port (listener-plan.ts), each with a pool of its own. */
    listeners = 1,
  ) {
    this.#budget = new ByteBudget(largeMessagesBudgetBytes);
    // One thread starts with the receiver, more under load, up to one more than there are cores:
    // with one per core, a core sat idle whenever a pool thread waited for the other (the
    // receiver's, the file writer's, PostgreSQL's) to give it up. A thread's
    // start costs a second or more of CPU (loading and compiling the AS2 modules), so an extra thread
    // stays for ten minutes without work: ended after 30 s, it was started again by every
    // burst, at several milliseconds of CPU per message of a short one.
    this.#pool = new Piscina({
      // A CommonJS file that imports the task module (open-worker-entry.cjs says why).
      filename: new URL('./open-worker-entry.cjs', import.meta.url).href,
      workerData: { taskModule: new URL(taskFile, import.meta.url).href },
      minThreads: 1,
      // With several listener threads the pools share the cores: about one more thread than
      // there are cores over all of them, at least one each.
      maxThreads: Math.max(1, Math.round((os.availableParallelism() + 1) / listeners)),
      idleTimeout: 600_000,
      // A thread whose answer this thread has not read yet is given its next message at once
      // (it waits in the thread's own queue, taken as the answer goes): under load this thread
      // reads an answer milliseconds after it was sent, and the pool thread sat idle meanwhile.
      concurrentTasksPerWorker: 2,
    });
    // Loading the AS2 modules takes the first thread a second or more (several on a loaded
    // machine); small messages are opened here until it answers, so none waits for that.
    this.ready = this.#pool.run({ warmUp: true }).then(
      () => {
        this.#ready = true;
      },
      () => {},
    );
  }

  /**
   * A message has arrived at the receiver: counted until the returned function is called, when
   * it is answered. Opening on this thread is synchronous, so messages being opened are never
   * two at once here; the ones waiting for their acceptance, their hand-off or their answer are
   * what tells a receiver under load from one with a single partner sending one at a time.
   */
  arrive(): () => void {
    this.#present++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.#present--;
    };
  }

  /**
   * `task.body` is handed over to the pool thread when large: the caller must not use it after.
   * A large body stored already (`body` null) is read from the store there. Opened here, the
   * message's receipt is made when the caller asks for it (`finishReceipt`); a pool thread makes
   * it with the rest.
   */
  async open(task: OpenTask): Promise<OpenedDocument> {
    if (task.receivedBytes < limits.largeBodyFromBytes) return this.#open(task);
    const release = await this.#budget.take(task.receivedBytes);
    try {
      return await this.#open(task);
    } finally {
      release();
    }
  }

  async #open(task: OpenTask): Promise<OpenedDocument> {
    const alone = this.#opening === 0 && this.#present <= 1;
    this.#opening++;
    try {
      // A small message is opened here when it is the only one at the receiver: the pool thread
      // would only add its two hops (the task and its result copied, two threads woken) to a
      // receipt that waits for nothing else, and leave this thread idle meanwhile. At concurrency
      // 1 that is every message. With others in flight the pool takes it, even when every pool
      // thread is busy: opened here, it held this thread for milliseconds, and every other
      // message's next step (its hand-off's answer, its acceptance, its receipt) waited for it,
      // while the pool threads, given nothing meanwhile, left a core idle (docs/decisions/
      // a-message-alone-is-opened-on-the-receiver-s-thread.md).
      const small = task.receivedBytes < limits.largeBodyFromBytes;
      if ((small && !this.#ready) || (alone && task.receivedBytes <= limits.openOnListenerMaxBytes)) {
        this.opened.here++;
        return await openDocument(task, this.store);
      }
      this.opened.pool++;
      return await this.#openInPool(task);
    } finally {
      this.#opening--;
    }
  }

  async #openInPool(task: OpenTask): Promise<OpenedDocument> {
    const body = task.body;
    const move =
      body !== null &&
      task.receivedBytes >= limits.largeBodyFromBytes &&
      body.byteOffset === 0 &&
      body.byteLength === body.buffer.byteLength;
    const { context, ...rest } = task;
    const pooled: PooledTask = { ...rest, storage: this.store.selection, contextKey: contextKeyOf(context) };
    // A body moved to the thread cannot be sent twice: its task carries the context at once.
    const run = (withContext: boolean) =>
      this.#pool.run(withContext ? { ...pooled, context } : pooled, {
        // Moved, not copied, when a large body owns its memory (a large Buffer.concat does). A
        // small one is copied: the receiver still keeps it as `received` meanwhile.
        transferList: move ? [body.buffer as ArrayBuffer] : [],
      }) as Promise<OpenResult | MissingContext>;
    let answer = await run(move);
    if ('missingContext' in answer) answer = await run(true);
    if ('missingContext' in answer) throw new Error('A pool thread refused a task that carried its context');
    const { receipt, receiptStage, ...opened } = answer;
    // Buffers arrive from another thread as plain Uint8Arrays.
    const receiptPart = { receipt: receipt && { ...receipt, body: asBuffer(receipt.body) }, receiptStage };
    return {
      ...opened,
      // Refused after the pool made it: made again here with the refusal (a CEM request the core refused).
      finishReceipt: (refusedLater) =>
        refusedLater ? receiptOf(task, this.store, refusedLater, null) : Promise.resolve(receiptPart),
    };
  }

  async close(): Promise<void> {
    await this.#pool.destroy();
  }
}

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
