/**
 * Where payload bytes live (docs/api/settings.md): one interface, a local directory now and S3 later.
 * Stages are streamed both ways, so memory stays flat whatever the payload size. A stage is
 * read only once the database records it, and it is recorded only after put resolved, so a
 * reader never sees a stage in the making. Stages up to 64 KiB are not written here but kept
 * in the row that records them (inline.ts).
 */
import type { StoreSelection } from './selection.js';
import type { Readable } from 'node:stream';

/** Stages that are stored; `message` is made from `headers` and `received` when read. */
export const storedStages = ['unpacked', 'received', 'headers', 'receipt'] as const;
export type StoredStage = (typeof storedStages)[number];

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Throws unless `messageId` is a message id (a UUID): the stores build paths and keys from it. */
export function checkMessageId(messageId: string): void {
  if (!uuid.test(messageId)) throw new Error(`Not a message id: ${messageId}`);
}

/** Throws unless `ref` names a message id and a stored stage. */
export function checkRef(ref: PayloadRef): void {
  checkMessageId(ref.messageId);
  if (!(storedStages as readonly string[]).includes(ref.stage)) throw new Error(`Not a stage: ${ref.stage}`);
}

export interface PayloadRef {
  messageId: string;
  stage: StoredStage;
}

export interface PutOptions {
  /** Refuse (PayloadTooLarge) a stream longer than this many bytes. */
  maxBytes?: number;
}

export interface PayloadStore {
  /** How to open this same store elsewhere (another thread): see open-store.ts. */
  readonly selection: StoreSelection;
  /** Streams `source` into a new stage (never replacing one) and flushes it; returns the bytes stored. */
  put(ref: PayloadRef, source: Readable, options?: PutOptions): Promise<number>;
  /** Stores bytes already in memory as a new stage and flushes it; returns the bytes stored. */
  putBytes(ref: PayloadRef, bytes: Uint8Array): Promise<number>;
  /** A stream of the stage's bytes; PayloadMissing when it is not stored. */
  open(ref: PayloadRef): Promise<Readable>;
  /**
   * Stores a document as the zlib stream its partner sent it in (a new stage, flushed), when the
   * store keeps stages in that form: `open` inflates it, `fileOf` answers null for it and
   * `copyToFile` false. Returns the document's bytes. Callers fall back to storing the bytes.
   */
  putDeflated?(ref: PayloadRef, deflated: DeflatedDocument): Promise<number>;
  /**
   * Stores a file as a new stage and flushes it, when the store can copy files without the
   * bytes passing through the process; returns the bytes stored. Callers fall back to `put`.
   */
  putFile?(ref: PayloadRef, source: string): Promise<number>;
  /**
   * Copies a stage to a new file at `destination` and flushes it, when the store can do so
   * without the bytes passing through the process (a local store: the kernel copies).
   * Answers false when it cannot; the caller then streams from `open`.
   */
  copyToFile?(ref: PayloadRef, destination: string): Promise<boolean>;
  /**
   * The file a stage is kept in, when the store keeps stages as local files, for reading it
   * in place (stages are written once, so it does not change underneath); null when the stage
   * is kept in another form than its bytes (putDeflated), PayloadMissing when it is not stored.
   * Callers must never write to it.
   */
  fileOf?(ref: PayloadRef): Promise<string | null>;
  /** Removes every stage of a message (a message that was never accepted). */
  removeMessage(messageId: string): Promise<void>;
}

import type { DeflatedDocument } from '../../protocol/payload-wire.js';
export type { DeflatedDocument };

export class PayloadMissing extends Error {
  constructor(ref: PayloadRef) {
    super(`Payload ${ref.stage} of message ${ref.messageId} is not in the store`);
    this.name = 'PayloadMissing';
  }
}

export class PayloadTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`The payload is larger than ${maxBytes} bytes`);
    this.name = 'PayloadTooLarge';
  }
}
