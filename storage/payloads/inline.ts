/**
 * Small stages live in the database row that records them (`payload.content`), not in the
 * store. A stage is durable only once it is flushed, and a flushed file per stage cost more
 * CPU than anything but RSA on the AS2 path (six per message, ≈ 0.9 ms of 5 ms); the row's
 * transaction is flushed anyway, and one WAL flush serves many messages. The bytes travel to
 * the core with the record that names the stage, as base64 (the core's messages are checked
 * data, and the statements take their rows as JSON). Larger stages go to the store as before,
 * and readers take `content` when a stage has it, else the store.
 */
import { Readable } from 'node:stream';
import { PayloadTooLarge, type PayloadRef, type PayloadStore, type PutOptions } from './store.js';
import { limits } from '../../limits/limits.js';

/** What a stage kept in its payload row carries (limits.inlineMaxBytes says up to which size). */
export { InlineContent } from '../../protocol/payload-wire.js';

/** A stage stored: its size, and its bytes (base64) when it is kept in its payload row. */
export interface KeptStage {
  size_bytes: number;
  content?: string;
}

const inline = (bytes: Uint8Array): KeptStage => ({
  size_bytes: bytes.length,
  content: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'),
});

/** Keeps bytes in memory as a stage: inline when small, else written to the store. */
export async function keepBytes(store: PayloadStore, ref: PayloadRef, bytes: Uint8Array): Promise<KeptStage> {
  if (bytes.length <= limits.inlineMaxBytes) return inline(bytes);
  return { size_bytes: await store.putBytes(ref, bytes) };
}

/**
 * Keeps a stream as a stage: read into memory while it stays small (kept inline), else the
 * part read and the rest are streamed into the store. The stream is consumed either way.
 */
export async function keepStream(
  store: PayloadStore,
  ref: PayloadRef,
  source: Readable,
  options: PutOptions = {},
): Promise<KeptStage> {
  const chunks = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head: Buffer[] = [];
  let bytes = 0;
  while (bytes <= limits.inlineMaxBytes) {
    const next = await chunks.next();
    if (next.done) {
      if (options.maxBytes !== undefined && bytes > options.maxBytes)
        throw new PayloadTooLarge(options.maxBytes);
      return inline(Buffer.concat(head, bytes));
    }
    head.push(next.value);
    bytes += next.value.length;
  }
  const rest = Readable.from(
    (async function* () {
      yield* head;
      for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
    })(),
    { objectMode: false },
  );
  return { size_bytes: await store.put(ref, rest, options) };
}

/** The bytes of a stage kept inline (`content` from its payload row or a claim). */
export const inlineBytes = (content: string): Buffer => Buffer.from(content, 'base64');

/** A stream of a stage: from its inline bytes when it has them, else from the store. */
export function openKept(
  store: PayloadStore,
  ref: PayloadRef,
  content: string | null | undefined,
): Promise<Readable> {
  if (content !== null && content !== undefined)
    return Promise.resolve(Readable.from([inlineBytes(content)]));
  return store.open(ref);
}
