/**
 * Building MIME entities as lists of Buffer chunks (headers in CRLF lines, body untouched), so
 * a payload is copied once, when the outermost layer is joined.
 */
import { randomUUID } from 'node:crypto';
import { MimeError } from './headers.js';

export type HeaderList = readonly (readonly [name: string, value: string])[];

export interface Chunks {
  readonly length: number;
  readonly chunks: readonly Buffer[];
}

export function chunksOf(...parts: (Buffer | Chunks)[]): Chunks {
  const chunks: Buffer[] = [];
  let length = 0;
  for (const p of parts) {
    if (Buffer.isBuffer(p)) {
      chunks.push(p);
      length += p.length;
    } else {
      chunks.push(...p.chunks);
      length += p.length;
    }
  }
  return { length, chunks };
}

export function joinChunks(c: Chunks): Buffer {
  return c.chunks.length === 1 ? c.chunks[0]! : Buffer.concat(c.chunks as Buffer[], c.length);
}

/** `Name: value` lines and the blank line. Values must be single lines: pier never folds. */
export function headerSection(headers: HeaderList): Buffer {
  let text = '';
  for (const [name, value] of headers) {
    if (/[\r\n]/.test(value) || /[\r\n:]/.test(name))
      throw new MimeError(`header ${name} contains a line break`);
    text += `${name}: ${value}\r\n`;
  }
  return Buffer.from(`${text}\r\n`, 'latin1');
}

export function buildEntity(headers: HeaderList, body: Buffer | Chunks): Chunks {
  return chunksOf(headerSection(headers), body);
}

/**
 * 32 hex digits of a random UUID (122 random bits) behind a prefix no payload line starts with
 * by chance. Node draws UUIDs from a buffer it fills in batches; `randomBytes(12)` asked OpenSSL
 * each time, at 7–20 µs a call, and a signed receipt needs two boundaries.
 */
export function newBoundary(): string {
  return `----=_Part_pier_${randomUUID().replace(/-/g, '')}`;
}

/** A multipart body: each part (an entity) between delimiter lines, then the close delimiter. */
export function buildMultipartBody(boundary: string, parts: readonly Chunks[]): Chunks {
  const pieces: (Buffer | Chunks)[] = [];
  for (const part of parts) {
    pieces.push(Buffer.from(`--${boundary}\r\n`, 'latin1'), part, Buffer.from('\r\n', 'latin1'));
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`, 'latin1'));
  return chunksOf(...pieces);
}
