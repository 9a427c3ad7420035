/**
 * Base64 in 76-character lines joined by CRLF, as mime/transfer-encoding.ts encodeBase64Lines
 * writes it (no line break after the last line), for content read a slice at a time.
 */
import { Transform, type TransformCallback } from 'node:stream';

/** 57 bytes make one 76-character line. */
const lineBytes = 57;
const crlf = Buffer.from('\r\n', 'latin1');

export class Base64Lines extends Transform {
  #pending: Buffer = Buffer.alloc(0);
  #first = true;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const bytes = this.#pending.length > 0 ? Buffer.concat([this.#pending, chunk]) : chunk;
    const whole = bytes.length - (bytes.length % lineBytes);
    this.#pending = Buffer.from(bytes.subarray(whole));
    if (whole > 0) this.push(this.#lines(bytes.subarray(0, whole)));
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.#pending.length > 0) this.push(this.#lines(this.#pending));
    done();
  }

  /** Whole lines, each after a CRLF but the very first. */
  #lines(bytes: Buffer): Buffer {
    const text = Buffer.from(bytes.toString('base64'), 'latin1');
    const count = Math.ceil(text.length / 76);
    const out = Buffer.allocUnsafe(text.length + count * 2 - (this.#first ? 2 : 0));
    let at = 0;
    for (let line = 0; line < count; line++) {
      if (!this.#first || line > 0) at += crlf.copy(out, at);
      at += text.copy(out, at, line * 76, Math.min(text.length, line * 76 + 76));
    }
    this.#first = false;
    return out;
  }
}
