/**
 * A message body too large to hold in memory, described instead: an ordered list of buffers
 * and ranges of files, with its total length known before a byte is read, so DER lengths and
 * Content-Length can be written up front and the bytes streamed afterwards.
 * The Chunks of mime/build.ts and the Der of pki/asn1/writer.ts are sources of buffers only.
 */
import { createReadStream } from 'node:fs';
import { tlvHeader } from '../../../pki/asn1/writer.js';

export interface FileRange {
  readonly file: string;
  readonly start: number;
  readonly length: number;
}

export type Piece = Buffer | FileRange;

export interface Source {
  readonly length: number;
  readonly chunks: readonly Piece[];
}

/**
 * How much of a file is read or written at a time, and what a zlib stream makes per chunk: bounds
 * the memory of every streamed pass, and every slice is a trip to libuv's thread pool (at zlib's
 * 16 KiB a 1 MiB document took five times the CPU to inflate).
 */
export const sliceBytes = 256 * 1024;

export function fileRange(file: string, length: number, start = 0): FileRange {
  return { file, start, length };
}

/**
 * The parts one after another. Pieces are kept as they are, never merged: CompressedData
 * deflates a large entity piece by piece, so the pieces decide the compressed bytes.
 */
export function sourceOf(...parts: (Piece | Source)[]): Source {
  const chunks: Piece[] = [];
  let length = 0;
  for (const part of parts) {
    if (Buffer.isBuffer(part) || 'file' in part) chunks.push(part);
    else chunks.push(...part.chunks);
    length += part.length;
  }
  return { length, chunks };
}

/** A DER value (tags below 31) around the parts; its length octets count them without reading. */
export function derOf(identifier: number, parts: readonly (Piece | Source)[]): Source {
  const contents = sourceOf(...parts);
  return sourceOf(tlvHeader(identifier, contents.length), contents);
}

/** The bytes of one piece: a buffer as it is, a file range read a slice at a time. */
export async function* readPiece(piece: Piece): AsyncGenerator<Buffer> {
  if (Buffer.isBuffer(piece)) {
    if (piece.length > 0) yield piece;
    return;
  }
  if (piece.length === 0) return;
  const stream = createReadStream(piece.file, {
    start: piece.start,
    end: piece.start + piece.length - 1,
    highWaterMark: sliceBytes,
  });
  let read = 0;
  for await (const chunk of stream) {
    read += (chunk as Buffer).length;
    yield chunk as Buffer;
  }
  // A temporary file changed under us would make every length written before it wrong.
  if (read !== piece.length) throw new Error(`${piece.file} ended after ${read} of ${piece.length} bytes`);
}

export async function* readSource(source: Source): AsyncGenerator<Buffer> {
  for (const piece of source.chunks) yield* readPiece(piece);
}

/** The whole source in one buffer: for tests and small sources only. */
export async function sourceBytes(source: Source): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const chunk of readSource(source)) out.push(chunk);
  return Buffer.concat(out, source.length);
}
