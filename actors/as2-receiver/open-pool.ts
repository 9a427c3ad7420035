/**
 * Where a received message is opened (open-message.ts): on the receiver's own thread when it
 * is small, which takes well under a millisecond of CPU beyond the RSA operations, and in a
 * pool of worker threads when it is large, so decrypting and decompressing megabytes never
 * holds up the receiver's event loop (other partners' requests, receipts, health answers).
 */
import os from 'node:os';
import { Piscina } from 'piscina';
import type { StoreSelection } from '../../storage/payloads/open-store.js';
import type { PayloadStore } from '../../storage/payloads/store.js';
import { openMessage, type OpenResult, type OpenTask } from './open-message.js';

/** Bodies from this size on are opened in the pool (≈ 10 ms of work and more). */
export const poolFromBytes = 1024 * 1024;

/** What a pool thread gets: the task and how to open the payload store there. */
export type PooledTask = OpenTask & { storage: StoreSelection };

export class MessageOpener {
  #pool: Piscina | undefined;

  constructor(private readonly store: PayloadStore) {}

  /**
   * `task.body` is handed over to the pool thread when large: the caller must not use it after.
   * A large body stored already (`body` null) is read from the store there.
   */
  async open(task: OpenTask): Promise<OpenResult> {
    if (task.receivedBytes < poolFromBytes) return openMessage(task, this.store);
    this.#pool ??= new Piscina({
      filename: new URL('./open-worker.mjs', import.meta.url).href,
      minThreads: 0,
      maxThreads: Math.max(1, os.availableParallelism()),
      idleTimeout: 30_000,
    });
    const body = task.body;
    const whole = body !== null && body.byteOffset === 0 && body.byteLength === body.buffer.byteLength;
    const pooled: PooledTask = { ...task, storage: this.store.selection };
    const result = (await this.#pool.run(pooled, {
      // Moved, not copied, when the body owns its memory (a large Buffer.concat does).
      transferList: whole ? [body.buffer as ArrayBuffer] : [],
    })) as OpenResult;
    // Buffers arrive from another thread as plain Uint8Arrays.
    return {
      ...result,
      receipt: result.receipt && { ...result.receipt, body: asBuffer(result.receipt.body) },
    };
  }

  async close(): Promise<void> {
    await this.#pool?.destroy();
  }
}

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
