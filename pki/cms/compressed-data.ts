/**
 * CompressedData (RFC 3274) with zlib (RFC 1950), through node:zlib. Debian's openssl has no
 * zlib, so this is the one CMS layer tested with `openssl asn1parse` instead of `openssl cms`.
 */
import { constants, deflateRawSync, deflateSync, inflateSync } from 'node:zlib';
import { CmsError } from './cms-error.js';
import { oids } from '../oids.js';
import { Asn1Error, octetChunks, readOid } from '../asn1/reader.js';
import {
  algorithmIdentifier,
  explicit,
  integer,
  octetString,
  oid,
  sequence,
  toBuffer,
} from '../asn1/writer.js';
import { readContentInfo } from './content-info.js';

/** From this size on, the parts are deflated one after another instead of joined first. */
export const joinBelowBytes = 1024 * 1024;

/**
 * zlib (RFC 1950) of the parts as if joined. A large entity (headers and a document of many
 * megabytes) would otherwise be held twice; instead each part is deflated raw, every part but
 * the last ending with a sync flush (byte-aligned, not final), so the pieces make one valid
 * deflate stream, framed by the zlib header and the Adler-32 of all the parts.
 */
export function deflateParts(parts: readonly Buffer[]): Buffer {
  const total = parts.reduce((n, p) => n + p.length, 0);
  if (parts.length === 1) return deflateSync(parts[0]!);
  if (total < joinBelowBytes) return deflateSync(Buffer.concat(parts));
  const pieces = [Buffer.from([0x78, 0x9c])]; // deflate, 32 KiB window, default level
  parts.forEach((part, i) =>
    pieces.push(
      deflateRawSync(part, {
        finishFlush: i < parts.length - 1 ? constants.Z_SYNC_FLUSH : constants.Z_FINISH,
      }),
    ),
  );
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(adler32(parts));
  pieces.push(checksum);
  return Buffer.concat(pieces);
}

/**
 * Adler-32 (RFC 1950 §9) over the parts in order; the sums are reduced every 5,552 bytes, as zlib
 * does. `running` is the checksum of what came before, for content read a piece at a time.
 */
export function adler32(parts: readonly Buffer[], running = 1): number {
  let a = running & 0xffff;
  let b = running >>> 16;
  for (const part of parts) {
    for (let start = 0; start < part.length; start += 5552) {
      const end = Math.min(part.length, start + 5552);
      for (let i = start; i < end; i++) {
        a += part[i]!;
        b += a;
      }
      a %= 65521;
      b %= 65521;
    }
  }
  return ((b << 16) | a) >>> 0;
}

/** Deflate expands at most about 1,032-fold (RFC 1951 length codes). */
const maxInflation = 1032;
const maxOutputChunk = 512 * 1024 * 1024;

/**
 * For a large compressed input, one output chunk big enough for all it can inflate to:
 * node:zlib then returns that chunk instead of joining many (a large document would be held
 * twice); pages never written take no memory. Small inputs keep zlib's default.
 */
function outputChunk(inputBytes: number, maxBytes: number): { chunkSize?: number } {
  if (inputBytes < 64 * 1024) return {};
  return { chunkSize: Math.min(maxBytes + 1, inputBytes * maxInflation, maxOutputChunk) };
}

export function compress(content: readonly Buffer[]): Buffer {
  const compressed = deflateParts(content);
  return toBuffer(
    sequence(
      oid(oids.compressedData),
      explicit(
        0,
        sequence(
          integer(0),
          algorithmIdentifier(oids.zlibCompress),
          sequence(oid(oids.data), explicit(0, octetString(compressed))),
        ),
      ),
    ),
  );
}

export interface DecompressOptions {
  /** Refuse content that inflates beyond this many bytes (a zip bomb). */
  maxBytes: number;
}

/** The decompressed content; any failure is a CmsError with decompression-failed. */
export function decompress(der: Buffer, options: DecompressOptions): Buffer {
  return inflateChunks(compressedChunks(der), options);
}

/**
 * The zlib stream of a CompressedData (compressedChunks) inflated; any failure is a CmsError with
 * decompression-failed.
 */
export function inflateChunks(chunks: readonly Buffer[], options: DecompressOptions): Buffer {
  try {
    const input = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    return inflateSync(input, {
      maxOutputLength: options.maxBytes,
      ...outputChunk(input.length, options.maxBytes),
    });
  } catch (error) {
    throw new CmsError('decompression-failed', `cannot decompress: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/**
 * The zlib stream inside a CompressedData, in the pieces it was sent in; a CmsError
 * with decompression-failed when it cannot be read. Shared with the streaming reader (stream/).
 */
export function compressedChunks(der: Buffer): Buffer[] {
  try {
    const info = readContentInfo(der);
    if (info.type !== oids.compressedData) throw new Asn1Error(`not CompressedData but ${info.type}`);
    const algorithm = readOid(info.content.child(1, 'compressionAlgorithm').child(0, 'algorithm'));
    if (algorithm !== oids.zlibCompress) throw new Asn1Error(`unsupported compression ${algorithm}`);
    const encap = info.content.child(2, 'encapContentInfo');
    const eContent = encap.child(1, 'eContent');
    if (!eContent.isContext(0)) throw new Asn1Error('eContent is not [0]');
    return octetChunks(eContent.child(0, 'eContent octets'));
  } catch (error) {
    throw new CmsError('decompression-failed', `unreadable CompressedData: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
