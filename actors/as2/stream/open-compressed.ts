/**
 * The innermost CompressedData of a large message inflated as a stream instead of into one
 * buffer: a first look inflates only the start, enough for the MIME headers of the entity
 * inside; when that entity is the document itself (no further layer, no transfer encoding to
 * undo), its body is inflated straight into the store later. The checks of decompress()
 * (the max-payload limit over the inflated entity, zlib's own) are made on the way; when any
 * fails, the caller unpacks in memory instead, which then refuses with decompress()'s words.
 */
import { Readable, Transform } from 'node:stream';
import { constants, createInflate, inflateSync } from 'node:zlib';
import type { Headers } from '../mime/headers.js';
import { contentTypeOf, parseEntity, transferEncodingOf } from '../mime/parse.js';
import { sliceBytes } from './source.js';

/** Compressed bytes inflated for the first look: at most ≈ 1 MiB out at deflate's 1,032:1. */
const peekInputBytes = 1024;

export interface DeferredInflate {
  /** The zlib stream, in the pieces the CompressedData held it. */
  chunks: readonly Buffer[];
  /** Bytes of the inflated entity before its body (header section and blank line). */
  skip: number;
  /** Most bytes the whole entity may inflate to. */
  maxBytes: number;
}

/** Layers unpack.ts would open inside; an entity of these types is not the document. */
const layerTypes = new Set(['application/pkcs7-mime', 'application/x-pkcs7-mime', 'multipart/signed']);
const passThroughEncodings = new Set(['binary', '7bit', '8bit', '']);

/**
 * The headers of the inflated entity and where its body starts, when its body can go to the
 * store as inflated; null when the entity must be unpacked in memory.
 */
export function peekInflated(
  chunks: readonly Buffer[],
  maxBytes: number,
): { headers: Headers; deferred: DeferredInflate } | null {
  try {
    const start = firstBytes(chunks, peekInputBytes);
    const prefix = inflateSync(start, { finishFlush: constants.Z_SYNC_FLUSH });
    const entity = parseEntity(prefix);
    const skip = prefix.length - entity.body.length;
    // The blank line must lie inside what was inflated, with some of the body after it.
    if (skip >= prefix.length || skip > maxBytes) return null;
    if (layerTypes.has(contentTypeOf(entity.headers).value)) return null;
    if (!passThroughEncodings.has(transferEncodingOf(entity.headers))) return null;
    return { headers: entity.headers, deferred: { chunks, skip, maxBytes } };
  } catch {
    return null;
  }
}

function firstBytes(chunks: readonly Buffer[], count: number): Buffer {
  const out: Buffer[] = [];
  let have = 0;
  for (const chunk of chunks) {
    if (have >= count) break;
    out.push(chunk.subarray(0, count - have));
    have += out[out.length - 1]!.length;
  }
  return Buffer.concat(out);
}

class InflatedTooLarge extends Error {
  constructor(maxBytes: number) {
    super(`the content inflates to more than ${maxBytes} bytes`);
    this.name = 'InflatedTooLarge';
  }
}

/** The entity's body, inflated as it is read; errors on corrupt data or past `maxBytes`. */
export function inflatedBody(deferred: DeferredInflate): Readable {
  let seen = 0;
  const skipHeaders = new Transform({
    transform(piece: Buffer, _encoding, done) {
      const from = seen;
      seen += piece.length;
      if (seen > deferred.maxBytes) return done(new InflatedTooLarge(deferred.maxBytes));
      if (seen <= deferred.skip) return done();
      done(null, from >= deferred.skip ? piece : piece.subarray(deferred.skip - from));
    },
  });
  const inflate = createInflate({ chunkSize: sliceBytes });
  const source = Readable.from(deferred.chunks);
  source.on('error', (error) => inflate.destroy(error));
  inflate.on('error', (error) => skipHeaders.destroy(error));
  return source.pipe(inflate).pipe(skipHeaders);
}
