/**
 * The S3 store, loaded on first use: every actor thread opens its store, and the AWS SDK takes
 * long enough to load that threads of a process on local storage must not pay for it (their
 * start is bounded by the supervisor's ready timeout).
 */
import type { Readable } from 'node:stream';
import type { S3PayloadStore } from './s3-store.js';
import type { S3Selection } from './selection.js';
import type { PayloadRef, PayloadStore, PutOptions } from './store.js';

export class LazyS3PayloadStore implements PayloadStore {
  #store: Promise<S3PayloadStore> | undefined;

  constructor(readonly selection: S3Selection) {}

  #open(): Promise<S3PayloadStore> {
    this.#store ??= import('./s3-store.js').then((m) => new m.S3PayloadStore(this.selection));
    return this.#store;
  }

  async put(ref: PayloadRef, source: Readable, options?: PutOptions): Promise<number> {
    return (await this.#open()).put(ref, source, options);
  }

  async putBytes(ref: PayloadRef, bytes: Uint8Array): Promise<number> {
    return (await this.#open()).putBytes(ref, bytes);
  }

  async open(ref: PayloadRef): Promise<Readable> {
    return (await this.#open()).open(ref);
  }

  async removeMessage(messageId: string): Promise<void> {
    return (await this.#open()).removeMessage(messageId);
  }

  /** Closes the client's sockets, when it was ever opened. */
  async close(): Promise<void> {
    (await this.#store)?.close();
  }
}
