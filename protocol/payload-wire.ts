/**
 * The payload shapes that cross a thread: a small stage's bytes carried inside a message to the
 * core, the payload store a thread opens, and the report of each call to it. The protocol owns
 * them and imports nothing of storage/; storage/payloads/ takes them from here (the one module of
 * protocol/ it may import), so the channel's schemas never pull in a store's code.
 */
import { z } from 'zod';
import { limits } from '../limits/limits.js';

/** A small stage's bytes as they cross to the core: base64, at most limits.inlineMaxBytes. */
export const InlineContent = z.string().max(Math.ceil(limits.inlineMaxBytes / 3) * 4);

const LocalSelection = z.object({ backend: z.literal('local'), directory: z.string() });
export const S3Selection = z.object({
  backend: z.literal('s3'),
  bucket: z.string(),
  region: z.string(),
  /** Empty for the provider's own service; otherwise path-style addressing is used. */
  endpoint: z.string(),
});
/** Which payload store a thread opens; never credentials (the S3 client takes them from the SDK's sources). */
export const StoreSelection = z.discriminatedUnion('backend', [LocalSelection, S3Selection]);
export type StoreSelection = z.infer<typeof StoreSelection>;
export type S3Selection = z.infer<typeof S3Selection>;

/**
 * A document as the innermost CompressedData of an AS2 message held it: the zlib stream (in the
 * pieces it came in), the bytes of the inflated entity before the document (its MIME headers),
 * and the document's size once inflated. Unpacking answers it (actors/as2/unpack.ts) and the
 * payload store keeps it (PayloadStore.putDeflated).
 */
export interface DeflatedDocument {
  chunks: readonly Uint8Array[];
  skip: number;
  size: number;
}

/** Hears of each call to a payload store: its operation, whether it succeeded, and how long it took. */
export type StoreCallObserver = (operation: string, ok: boolean, seconds: number) => void;

/**
 * The memory to move with `bytes` to another thread instead of copying it: a large view that
 * has its buffer (nearly) to itself, such as zlib's output. A small one may sit in Node's shared
 * pool of small buffers, which must never be moved; it is copied.
 */
export function movableMemory(bytes: Uint8Array): ArrayBuffer[] {
  const { buffer } = bytes;
  const ownsIt =
    buffer instanceof ArrayBuffer &&
    bytes.byteLength > limits.inlineMaxBytes &&
    buffer.byteLength <= 2 * bytes.byteLength;
  return ownsIt ? [buffer] : [];
}
