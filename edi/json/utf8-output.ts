/**
 * The JSON writer's output: UTF-8 bytes written into Buffers of a quarter mebibyte and handed on
 * whole. The JSON goes to files, sockets and uploads as bytes; written as strings it was copied
 * twice more (a Latin-1 Buffer made a string, that string encoded as UTF-8 by the consumer) and
 * handed on in pieces of 66 KiB, a write each.
 */
import { viewOf } from './data-view.js';

/** Each Buffer's size: the JSON of several 16 KiB slices of EDI. */
const chunkBytes = 256 * 1024;

export class Utf8Output {
  /** The Buffer being filled: writers copy into it at `length` and move `length` on. */
  buffer = Buffer.allocUnsafe(chunkBytes);
  /** `buffer` as a DataView, for writers that store four bytes at a time. */
  view = viewOf(this.buffer);
  length = 0;
  /** Buffers filled, not taken yet. */
  #full: Buffer[] = [];
  #fullBytes = 0;

  /** Room for `bytes` more in `buffer`: a full one is put aside, and a new one made. */
  room(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    this.#putAside();
    if (bytes > this.buffer.length) {
      this.buffer = Buffer.allocUnsafe(bytes);
      this.view = viewOf(this.buffer);
    }
  }

  #putAside(): void {
    if (this.length === 0) return;
    this.#full.push(this.buffer.subarray(0, this.length));
    this.#fullBytes += this.length;
    // A new Buffer, not the old one cleared: what was handed on may not have been written yet.
    this.buffer = Buffer.allocUnsafe(chunkBytes);
    this.view = viewOf(this.buffer);
    this.length = 0;
  }

  /** Any text, as UTF-8: a lone surrogate as U+FFFD, as Buffer.from(text, 'utf8') writes it. */
  text(s: string): void {
    this.room(3 * s.length);
    const out = this.buffer;
    let o = this.length;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) out[o++] = c;
      else if (c < 0x800) {
        out[o++] = 0xc0 | (c >> 6);
        out[o++] = 0x80 | (c & 0x3f);
      } else {
        // Three bytes or a surrogate pair: the rest in one step, by the encoder.
        o += out.write(s.slice(i), o, 'utf8');
        break;
      }
    }
    this.length = o;
  }

  bytes(b: Buffer): void {
    this.room(b.length);
    this.buffer.set(b, this.length);
    this.length += b.length;
  }

  /** Bytes filled and not taken yet. */
  get size(): number {
    return this.#fullBytes + this.length;
  }

  /** Everything written since the last call. */
  take(): Buffer[] {
    this.#putAside();
    const out = this.#full;
    this.#full = [];
    this.#fullBytes = 0;
    return out;
  }
}
