/**
 * The JSON reader's fast path for the common segment: `{"tag":…,"elements":["…","…"],…}` with
 * simple values holding no separator, no escape and no character beyond Latin-1. It reads the
 * JSON's UTF-8 bytes, with no string made. Such a segment becomes a PlainSegmentEvent
 * (plain-segment.ts) pointing at its elements' bytes, which the EDI writer copies with `","`
 * replaced by the element separator, and its annotations (names, positions, meanings) are
 * checked for JSON form and skipped without being built. Anything else (escapes, numbers, a nested element, a
 * key twice) is left to the general path, which parses the value with JSON.parse, so what is
 * accepted and what is refused, with which message, stays the same.
 */
import { LastView, viewOf } from './data-view.js';
import type { DelimitersJson } from './form.js';
import { PlainSegmentEvent } from './plain-segment.js';
import { tagCode, tagCodeOfBytes } from './tag-code.js';

/** The text may end inside the value: more is needed to say. */
export const more = -1;
/** Not a plain segment: the general path takes it. */
const other = -2;
/** Annotations nest three deep (a name list of a repeated composite); deeper is left to JSON.parse. */
const maxDepth = 8;
/** Suffixes remembered (see PlainSegmentReader): tags are few in real interchanges. */
const maxSuffixes = 1000;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function space(b: Buffer, j: number): number {
  while (j < b.length && isSpace(b[j]!)) j++;
  return j;
}

/**
 * Index of the quote that ends the string starting at `j`, or `more`; a string with an escape or
 * a control character is `other`. A loop over the characters: strings here are short, and a
 * native search per string cost more than it saved.
 */
function stringEnd(b: Buffer, j: number): number {
  for (let k = j + 1; k < b.length; k++) {
    const c = b[k]!;
    if (c === 0x22) return k;
    if (c === 0x5c || c < 0x20) return other;
  }
  return more;
}

/** Index after a string, array, object or null starting at `j`, made of nothing else; `more` or `other`. */
function skip(b: Buffer, j: number, depth: number): number {
  const c = b[j];
  if (c === 0x22) {
    const end = stringEnd(b, j);
    return end < 0 ? end : end + 1;
  }
  if (c === 0x6e) {
    if (j + 4 > b.length) return more;
    return b[j + 1] === 0x75 && b[j + 2] === 0x6c && b[j + 3] === 0x6c ? j + 4 : other;
  }
  if ((c !== 0x5b && c !== 0x7b) || depth >= maxDepth) return j >= b.length ? more : other;
  const object = c === 0x7b;
  const close = object ? 0x7d : 0x5d;
  j = space(b, j + 1);
  if (j >= b.length) return more;
  if (b[j] === close) return j + 1;
  for (;;) {
    if (object) {
      if (b[j] !== 0x22) return other;
      const end = stringEnd(b, j);
      if (end < 0) return end;
      j = space(b, end + 1);
      if (j >= b.length) return more;
      if (b[j] !== 0x3a) return other;
      j = space(b, j + 1);
      if (j >= b.length) return more;
    }
    const after = skip(b, j, depth + 1);
    if (after < 0) return after;
    j = space(b, after);
    if (j >= b.length) return more;
    const d = b[j];
    if (d === close) return j + 1;
    if (d !== 0x2c) return other;
    j = space(b, j + 1);
    if (j >= b.length) return more;
  }
}

/** Whether `b` holds `bytes` at `at`. */
export function sameBytes(b: Uint8Array, at: number, bytes: Uint8Array): boolean {
  if (at + bytes.length > b.length) return false;
  for (let k = 0; k < bytes.length; k++) if (b[at + k] !== bytes[k]) return false;
  return true;
}

/**
 * sameBytes four bytes at a time, through DataViews of both: for the usual 60 to 90 bytes of
 * annotations, half the time of a loop over bytes, and Buffer's compare (a call into C++) took
 * longer than that loop.
 */
function sameBytesIn(text: DataView, at: number, bytes: DataView): boolean {
  const n = bytes.byteLength;
  if (at + n > text.byteLength) return false;
  let k = 0;
  for (; k + 4 <= n; k += 4) if (text.getUint32(at + k) !== bytes.getUint32(k)) return false;
  for (; k < n; k++) if (text.getUint8(at + k) !== bytes.getUint8(k)) return false;
  return true;
}

/** A tag seen, and the bytes after its elements (see PlainSegmentReader). */
interface TagEntry {
  tag: string;
  suffix: DataView | undefined;
}

/** Whether `b` holds `tag` at `at`; bytes compared in line are faster than a loop. */
const isTagWord = (b: Buffer, at: number) => b[at] === 0x74 && b[at + 1] === 0x61 && b[at + 2] === 0x67;

/** Whether `b` holds `elements` at `at` (see isTagWord). */
const isElementsWord = (b: Buffer, at: number) =>
  b[at] === 0x65 &&
  b[at + 1] === 0x6c &&
  b[at + 2] === 0x65 &&
  b[at + 3] === 0x6d &&
  b[at + 4] === 0x65 &&
  b[at + 5] === 0x6e &&
  b[at + 6] === 0x74 &&
  b[at + 7] === 0x73;

export class PlainSegmentReader {
  /** Index after the segment last read. */
  end = 0;
  readonly #separator: string;
  /**
   * Per tag, by its number (no string made or hashed per segment): the tag's string, and the
   * bytes after the elements (the annotations) of the first segment read whole: the writer gives
   * every segment of a tag and element count the same annotations (names and positions) unless
   * meanings differ, so the next ones are compared with them in one step instead of being
   * scanned a byte at a time. Text that was valid JSON after a segment's elements and before
   * its closing brace is valid there again.
   */
  #tags = new Map<number, TagEntry>();
  #suffixCount = 0;
  /** A DataView of the text last read, for sameBytesIn. */
  readonly #view = new LastView();
  /**
   * By character code below 256, what it is in the elements' text: 0 data, 1 a character that
   * would need a release character or that X12 cannot carry, an escape or a control character
   * (which JSON.parse refuses), 2 a quote (which must be one of a `","` between values, or the
   * `"]` after the last). Checked a byte at a time in the loop that finds the values: a pattern
   * test, a replace and a search for a quote left made three passes and two strings per segment.
   */
  readonly #kind = new Uint8Array(256);

  constructor(d: DelimitersJson) {
    this.#separator = d.element;
    for (let c = 0; c < 0x20; c++) this.#kind[c] = 1;
    this.#kind[0x22] = 2;
    this.#kind[0x5c] = 1;
    for (const c of [d.segment, d.element, d.component, d.repetition, d.release])
      if (c !== '' && c.charCodeAt(0) < 256) this.#kind[c.charCodeAt(0)] = 1;
  }

  /**
   * Index of the `]` that closes the values starting at `k` (after `["`): values joined by
   * `","`, holding no special character and none beyond Latin-1 (two bytes of UTF-8, C2 or C3
   * and one more); `more` or `other`.
   */
  #valuesEnd(b: Buffer, k: number): number {
    const kind = this.#kind;
    for (; k < b.length; k++) {
      const c = b[k]!;
      if (c >= 0x80) {
        if ((c !== 0xc2 && c !== 0xc3) || k + 1 >= b.length) return k + 1 >= b.length ? more : other;
        const next = b[k + 1]!;
        if ((next & 0xc0) !== 0x80 || kind[((c & 0x1f) << 6) | (next & 0x3f)] !== 0) return other;
        k++;
        continue;
      }
      const what = kind[c];
      if (what === 0) continue;
      if (what === 1 || k + 2 >= b.length) return what === 1 ? other : more;
      const after = b[k + 1];
      if (after === 0x5d) return k + 1;
      if (after !== 0x2c || b[k + 2] !== 0x22) return other;
      k += 2;
    }
    return more;
  }

  /** The plain segment whose object starts at `i` (a `{`), or `more`, or `other`. */
  read(b: Buffer, i: number): PlainSegmentEvent | typeof more | typeof other {
    return this.#readAsWritten(b, i) ?? this.#readAnyWay(b, i);
  }

  /**
   * The plain segment at `i` when it is written as the form's writer writes it:
   * `{"tag":"…","elements":[…]` and the annotations its tag had before, with no white space.
   * Its bytes are compared four at a time, where #readAnyWay reads key after key; null for
   * anything else, or when the text ends first, which #readAnyWay then reads.
   */
  #readAsWritten(b: Buffer, i: number): PlainSegmentEvent | null {
    const view = this.#view.of(b);
    if (i + 12 > b.length || view.getUint32(i) !== 0x7b227461 || view.getUint32(i + 4) !== 0x67223a22)
      return null;
    const from = i + 8;
    const quote = b[from + 2] === 0x22 ? from + 2 : b[from + 3] === 0x22 ? from + 3 : -1;
    if (quote < 0 || quote + 15 > b.length) return null;
    const tag = this.#tags.get(tagCodeOfBytes(b, from, quote));
    const known = tag?.suffix;
    // `,"elements":[`
    if (
      known === undefined ||
      view.getUint32(quote + 1) !== 0x2c22656c ||
      view.getUint32(quote + 5) !== 0x656d656e ||
      view.getUint32(quote + 9) !== 0x7473223a ||
      b[quote + 13] !== 0x5b
    )
      return null;
    let j = quote + 14;
    let start = -1;
    let end = -1;
    if (b[j] === 0x5d) j++;
    else {
      if (b[j] !== 0x22) return null;
      const close = this.#valuesEnd(b, j + 1);
      if (close < 0) return null;
      start = j + 1;
      end = close - 1;
      j = close + 1;
    }
    if (b[j + known.byteLength] !== 0x7d || !sameBytesIn(view, j, known)) return null;
    this.end = j + known.byteLength + 1;
    return new PlainSegmentEvent('segment', tag!.tag, b, start, end, '","', this.#separator);
  }

  /** The plain segment at `i` however it is written (white space, keys in any order). */
  #readAnyWay(b: Buffer, i: number): PlainSegmentEvent | typeof more | typeof other {
    let tag: TagEntry | null = null;
    let innerStart = -1;
    let innerEnd = -1;
    let elements = false;
    let suffixStart = -1;
    let j = space(b, i + 1);
    if (j >= b.length) return more;
    if (b[j] !== 0x7d)
      for (;;) {
        if (b[j] !== 0x22) return other;
        const keyEnd = stringEnd(b, j);
        if (keyEnd < 0) return keyEnd === more ? more : other;
        const isTagKey = keyEnd - j === 4 && isTagWord(b, j + 1);
        const isElementsKey = keyEnd - j === 9 && isElementsWord(b, j + 1);
        j = space(b, keyEnd + 1);
        if (j >= b.length) return more;
        if (b[j] !== 0x3a) return other;
        j = space(b, j + 1);
        if (j >= b.length) return more;
        if (isTagKey) {
          if (tag !== null || b[j] !== 0x22) return other;
          const end = stringEnd(b, j);
          if (end < 0) return end === more ? more : other;
          const code = tagCodeOfBytes(b, j + 1, end);
          if (code < 0) return other;
          tag = this.#tags.get(code) ?? null;
          if (tag === null) {
            tag = { tag: b.toString('latin1', j + 1, end), suffix: undefined };
            this.#tags.set(code, tag);
          }
          j = end + 1;
        } else if (isElementsKey) {
          if (elements || b[j] !== 0x5b) return other;
          elements = true;
          if (j + 1 >= b.length) return more;
          if (b[j + 1] === 0x5d) j += 2;
          else {
            if (b[j + 1] !== 0x22) return other;
            const close = this.#valuesEnd(b, j + 2);
            if (close < 0) return close === more ? more : other;
            innerStart = j + 2;
            innerEnd = close - 1;
            j = close + 1;
          }
        } else {
          const after = skip(b, j, 1);
          if (after < 0) return after === more ? more : other;
          j = after;
        }
        if (isElementsKey && tag !== null) {
          const known = tag.suffix;
          if (
            known !== undefined &&
            b[j + known.byteLength] === 0x7d &&
            sameBytesIn(this.#view.of(b), j, known)
          ) {
            j += known.byteLength;
            break;
          }
          suffixStart = j;
        }
        j = space(b, j);
        if (j >= b.length) return more;
        const c = b[j];
        if (c === 0x7d) break;
        if (c !== 0x2c) return other;
        j = space(b, j + 1);
        if (j >= b.length) return more;
      }
    const end = j + 1;
    if (tag === null || !elements) return other;
    // Kept when empty too (no annotations), so that #readAsWritten takes the next ones.
    if (suffixStart >= 0 && j >= suffixStart && tag.suffix === undefined) {
      if (this.#suffixCount >= maxSuffixes) {
        this.#tags = new Map();
        this.#suffixCount = 0;
      }
      // A copy: a view would keep the whole text it was cut from.
      tag.suffix = viewOf(Buffer.from(b.subarray(suffixStart, j)));
      this.#tags.set(tagCode(tag.tag, 0, tag.tag.length), tag);
      this.#suffixCount++;
    }
    this.end = end;
    return new PlainSegmentEvent('segment', tag.tag, b, innerStart, innerEnd, '","', this.#separator);
  }
}
