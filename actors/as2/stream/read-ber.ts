/**
 * A BER reader over a stream of Buffers, for CMS too large to hold whole: small values
 * (algorithm identifiers, recipient infos) are read whole and handed to the Buffer reader
 * (asn1/reader.ts), the one large value (the encrypted content) passes through in pieces.
 */
import { Asn1Error } from '../../../pki/asn1/reader.js';

export interface BerHeader {
  tagClass: number;
  constructed: boolean;
  tag: number;
  /** Content length in bytes; null for an indefinite length. */
  length: number | null;
  /** Stream offset just after the header. */
  contentStart: number;
  /** The header bytes as received. */
  raw: Buffer;
}

/** Largest value read whole; CMS headers are kilobytes, so more is not a header. */
const maxWholeBytes = 1024 * 1024;
/** Deep enough for any CMS header; stops a crafted message from exhausting the stack. */
const maxDepth = 48;

export class BerStream {
  readonly #source: AsyncIterator<Buffer>;
  #buffer: Buffer = Buffer.alloc(0);
  #ended = false;
  /** Bytes consumed so far. */
  offset = 0;

  constructor(source: AsyncIterable<Buffer>) {
    this.#source = source[Symbol.asyncIterator]();
  }

  /** At least `n` bytes buffered, or false at the end of the stream. */
  async #fill(n: number): Promise<boolean> {
    while (this.#buffer.length < n && !this.#ended) {
      const next = await this.#source.next();
      if (next.done) this.#ended = true;
      else if (this.#buffer.length === 0) this.#buffer = next.value;
      else this.#buffer = Buffer.concat([this.#buffer, next.value]);
    }
    return this.#buffer.length >= n;
  }

  #take(n: number): Buffer {
    const piece = this.#buffer.subarray(0, n);
    this.#buffer = this.#buffer.subarray(n);
    this.offset += n;
    return piece;
  }

  async #bytes(n: number): Promise<Buffer> {
    if (!(await this.#fill(n))) throw new Asn1Error('truncated');
    return this.#take(n);
  }

  async header(): Promise<BerHeader> {
    const start = this.offset;
    const parts: Buffer[] = [];
    const byte = async () => {
      const b = await this.#bytes(1);
      parts.push(b);
      return b[0]!;
    };
    const first = await byte();
    let tag = first & 0x1f;
    if (tag === 0x1f) {
      tag = 0;
      for (let n = 0; ; n++) {
        if (n > 3) throw new Asn1Error('oversized tag');
        const b = await byte();
        tag = tag * 128 + (b & 0x7f);
        if ((b & 0x80) === 0) break;
      }
    }
    const constructed = (first & 0x20) !== 0;
    const lengthByte = await byte();
    let length: number | null = lengthByte;
    if (lengthByte === 0x80) {
      if (!constructed) throw new Asn1Error('indefinite length on a primitive value');
      length = null;
    } else if (lengthByte > 0x80) {
      const count = lengthByte & 0x7f;
      if (count > 4) throw new Asn1Error('length too large');
      length = 0;
      for (let i = 0; i < count; i++) length = length * 256 + (await byte());
    }
    const raw = Buffer.concat(parts);
    return { tagClass: first >> 6, constructed, tag, length, contentStart: start + raw.length, raw };
  }

  /** Consumes an end-of-contents marker when one comes next. */
  async endOfContents(): Promise<boolean> {
    if (!(await this.#fill(2))) throw new Asn1Error('truncated: missing end-of-contents');
    if (this.#buffer[0] !== 0 || this.#buffer[1] !== 0) return false;
    this.#take(2);
    return true;
  }

  /** Whether the constructed value opened by `header` has more children. */
  async hasMore(header: BerHeader): Promise<boolean> {
    if (header.length === null) return !(await this.endOfContents());
    const end = header.contentStart + header.length;
    if (this.offset > end) throw new Asn1Error('a value runs past its parent');
    return this.offset < end;
  }

  /** One whole value (header included) as received, for the Buffer reader. */
  async element(): Promise<Buffer> {
    return Buffer.concat(await this.#elementParts(0));
  }

  async #elementParts(depth: number): Promise<Buffer[]> {
    if (depth > maxDepth) throw new Asn1Error('nested too deeply');
    const header = await this.header();
    const parts = [header.raw];
    if (header.length !== null) {
      if (header.length > maxWholeBytes) throw new Asn1Error('value too large to read whole');
      parts.push(await this.#bytes(header.length));
      return parts;
    }
    let size = 0;
    while (!(await this.endOfContents())) {
      for (const part of await this.#elementParts(depth + 1)) {
        size += part.length;
        parts.push(part);
      }
      if (size > maxWholeBytes) throw new Asn1Error('value too large to read whole');
    }
    parts.push(Buffer.alloc(2));
    return parts;
  }

  /** Passes `length` bytes to `sink` in the pieces they arrive in. */
  async pass(length: number, sink: (piece: Buffer) => void): Promise<void> {
    let left = length;
    while (left > 0) {
      if (!(await this.#fill(1))) throw new Asn1Error('truncated');
      const piece = this.#take(Math.min(left, this.#buffer.length));
      left -= piece.length;
      sink(piece);
    }
  }

  /**
   * Passes the contents of an OCTET STRING (or an IMPLICIT one) whose header was read,
   * primitive or constructed of chunks to any depth; answers the bytes passed.
   */
  async passOctets(header: BerHeader, sink: (piece: Buffer) => void, depth = 0): Promise<number> {
    if (depth > maxDepth) throw new Asn1Error('nested too deeply');
    if (!header.constructed) {
      await this.pass(header.length!, sink);
      return header.length!;
    }
    let total = 0;
    while (await this.hasMore(header)) total += await this.passOctets(await this.header(), sink, depth + 1);
    return total;
  }

  /**
   * Throws unless only what the Buffer reader tolerates after a value (zero bytes and
   * white space) remains.
   */
  async expectEnd(): Promise<void> {
    while (await this.#fill(1)) {
      for (const b of this.#take(this.#buffer.length)) {
        if (b !== 0 && b !== 0x0d && b !== 0x0a && b !== 0x20)
          throw new Asn1Error('trailing data after the value');
      }
    }
  }
}
