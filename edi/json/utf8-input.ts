/**
 * The JSON form is read as UTF-8 bytes, with no string made of it, yet what it accepts and how
 * its refusals count characters stay those of the decoded text it was read as before: these
 * say what a decoder would have made of the bytes.
 */
import { isAscii } from 'node:buffer';

/**
 * How many bytes at the end of `b` a StringDecoder holds back, waiting for the rest of a
 * character cut short (node's string_decoder.cc): the reader does not look at them yet either.
 */
export function heldBack(b: Uint8Array): number {
  for (let i = b.length - 1, trailing = 1; i >= 0; i--, trailing++) {
    const c = b[i]!;
    if ((c & 0xc0) === 0x80) {
      if (trailing >= 4 || i === 0) return 0;
      continue;
    }
    const length = (c & 0xe0) === 0xc0 ? 2 : (c & 0xf0) === 0xe0 ? 3 : (c & 0xf8) === 0xf0 ? 4 : 0;
    return trailing < length ? trailing : 0;
  }
  return 0;
}

/** How many characters (UTF-16 code units) the bytes `b` from `from` to `to` decode to. */
export function charactersIn(b: Buffer, from: number, to: number): number {
  const part = b.subarray(from, to);
  return isAscii(part) ? part.length : part.toString('utf8').length;
}
