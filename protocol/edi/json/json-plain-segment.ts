/**
 * The JSON reader's fast path for the common segment: `{"tag":…,"elements":["…","…"],…}` with
 * simple values holding no separator, no escape and no character beyond Latin-1. Such a segment
 * becomes a PlainSegmentEvent (plain-segment.ts) pointing at its elements' JSON text, which the
 * EDI writer copies with `","` replaced by the element separator, and its annotations (names,
 * positions, meanings) are checked for JSON form and skipped without being built. Anything else (escapes, numbers, a nested element, a
 * key twice) is left to the general path, which parses the value with JSON.parse, so what is
 * accepted and what is refused, with which message, stays the same.
 */
import type { DelimitersJson } from './form.js';
import { PlainSegmentEvent } from './plain-segment.js';
import { tagCode } from './tag-code.js';

/** The text may end inside the value: more is needed to say. */
export const more = -1;
/** Not a plain segment: the general path takes it. */
const other = -2;
/** Annotations nest three deep (a name list of a repeated composite); deeper is left to JSON.parse. */
const maxDepth = 8;
/** Suffixes remembered (see PlainSegmentReader): tags are few in real interchanges. */
const maxSuffixes = 1000;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function space(b: string, j: number): number {
  while (j < b.length && isSpace(b.charCodeAt(j))) j++;
  return j;
}

/**
 * Index of the quote that ends the string starting at `j`, or `more`; a string with an escape or
 * a control character is `other`. A loop over the characters: strings here are short, and a
 * native search per string cost more than it saved.
 */
function stringEnd(b: string, j: number): number {
  for (let k = j + 1; k < b.length; k++) {
    const c = b.charCodeAt(k);
    if (c === 0x22) return k;
    if (c === 0x5c || c < 0x20) return other;
  }
  return more;
}

/** Index after a string, array, object or null starting at `j`, made of nothing else; `more` or `other`. */
function skip(b: string, j: number, depth: number): number {
  const c = b.charCodeAt(j);
  if (c === 0x22) {
    const end = stringEnd(b, j);
    return end < 0 ? end : end + 1;
  }
  if (c === 0x6e) {
    if (j + 4 > b.length) return more;
    return b.startsWith('null', j) ? j + 4 : other;
  }
  if ((c !== 0x5b && c !== 0x7b) || depth >= maxDepth) return j >= b.length ? more : other;
  const object = c === 0x7b;
  const close = object ? 0x7d : 0x5d;
  j = space(b, j + 1);
  if (j >= b.length) return more;
  if (b.charCodeAt(j) === close) return j + 1;
  for (;;) {
    if (object) {
      if (b.charCodeAt(j) !== 0x22) return other;
      const end = stringEnd(b, j);
      if (end < 0) return end;
      j = space(b, end + 1);
      if (j >= b.length) return more;
      if (b.charCodeAt(j) !== 0x3a) return other;
      j = space(b, j + 1);
      if (j >= b.length) return more;
    }
    const after = skip(b, j, depth + 1);
    if (after < 0) return after;
    j = space(b, after);
    if (j >= b.length) return more;
    const d = b.charCodeAt(j);
    if (d === close) return j + 1;
    if (d !== 0x2c) return other;
    j = space(b, j + 1);
    if (j >= b.length) return more;
  }
}

/** A tag seen, and the text after its elements (see PlainSegmentReader). */
interface TagEntry {
  tag: string;
  suffix: string | undefined;
}

/** Whether `b` holds `tag` at `at`; character codes compared in line are faster than startsWith or a loop. */
const isTagWord = (b: string, at: number) =>
  b.charCodeAt(at) === 0x74 && b.charCodeAt(at + 1) === 0x61 && b.charCodeAt(at + 2) === 0x67;

/** Whether `b` holds `elements` at `at` (see isTagWord). */
const isElementsWord = (b: string, at: number) =>
  b.charCodeAt(at) === 0x65 &&
  b.charCodeAt(at + 1) === 0x6c &&
  b.charCodeAt(at + 2) === 0x65 &&
  b.charCodeAt(at + 3) === 0x6d &&
  b.charCodeAt(at + 4) === 0x65 &&
  b.charCodeAt(at + 5) === 0x6e &&
  b.charCodeAt(at + 6) === 0x74 &&
  b.charCodeAt(at + 7) === 0x73;

export class PlainSegmentReader {
  /** Index after the segment last read. */
  end = 0;
  readonly #separator: string;
  /**
   * Per tag, by its number (no string made or hashed per segment): the tag's string, and the
   * text after the elements (the annotations) of the first segment read whole: the writer gives
   * every segment of a tag and element count the same annotations (names and positions) unless
   * meanings differ, so the next ones are compared with it in one step instead of being scanned
   * a character at a time. Text that was valid JSON after a segment's elements and before its
   * closing brace is valid there again.
   */
  #tags = new Map<number, TagEntry>();
  #suffixCount = 0;
  /**
   * By character code below 256, what it is in the elements' text: 0 data, 1 a character that
   * would need a release character or that X12 cannot carry, an escape or a control character
   * (which JSON.parse refuses), 2 a quote (which must be one of a `","` between values). Checked
   * a character at a time in the loop that finds the values: a pattern test, a replace and a
   * search for a quote left made three passes and two strings per segment.
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

  /** Whether `b` from `start` to `end` is values joined by `","` with no special character. */
  #plainValues(b: string, start: number, end: number): boolean {
    const kind = this.#kind;
    for (let k = start; k < end; k++) {
      const c = b.charCodeAt(k);
      if (c > 0xff) return false;
      const what = kind[c];
      if (what === 0) continue;
      if (what === 1 || k + 2 >= end || b.charCodeAt(k + 1) !== 0x2c || b.charCodeAt(k + 2) !== 0x22)
        return false;
      k += 2;
    }
    return true;
  }

  /** The plain segment whose object starts at `i` (a `{`), or `more`, or `other`. */
  read(b: string, i: number): PlainSegmentEvent | typeof more | typeof other {
    let tag: TagEntry | null = null;
    let innerStart = -1;
    let innerEnd = -1;
    let elements = false;
    let suffixStart = -1;
    let j = space(b, i + 1);
    if (j >= b.length) return more;
    if (b.charCodeAt(j) !== 0x7d)
      for (;;) {
        if (b.charCodeAt(j) !== 0x22) return other;
        const keyEnd = stringEnd(b, j);
        if (keyEnd < 0) return keyEnd === more ? more : other;
        const isTagKey = keyEnd - j === 4 && isTagWord(b, j + 1);
        const isElementsKey = keyEnd - j === 9 && isElementsWord(b, j + 1);
        j = space(b, keyEnd + 1);
        if (j >= b.length) return more;
        if (b.charCodeAt(j) !== 0x3a) return other;
        j = space(b, j + 1);
        if (j >= b.length) return more;
        if (isTagKey) {
          if (tag !== null || b.charCodeAt(j) !== 0x22) return other;
          const end = stringEnd(b, j);
          if (end < 0) return end === more ? more : other;
          const code = tagCode(b, j + 1, end);
          if (code < 0) return other;
          tag = this.#tags.get(code) ?? null;
          if (tag === null) {
            tag = { tag: b.slice(j + 1, end), suffix: undefined };
            this.#tags.set(code, tag);
          }
          j = end + 1;
        } else if (isElementsKey) {
          if (elements || b.charCodeAt(j) !== 0x5b) return other;
          elements = true;
          if (j + 1 >= b.length) return more;
          if (b.charCodeAt(j + 1) === 0x5d) j += 2;
          else {
            if (b.charCodeAt(j + 1) !== 0x22) return other;
            // Values hold no quote unescaped, so a quote left after the replace means another shape.
            // One character searched for is several times faster than two; a bracket inside a
            // value has no quote before it, or leaves a quote after the replace.
            const close = b.indexOf(']', j + 2);
            if (close < 0) return more;
            if (close < j + 3 || b.charCodeAt(close - 1) !== 0x22) return other;
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
          // A slice compared is a memory comparison; startsWith compared a character at a time (6× slower here).
          if (
            known !== undefined &&
            b.charCodeAt(j + known.length) === 0x7d &&
            b.slice(j, j + known.length) === known
          ) {
            j += known.length;
            break;
          }
          suffixStart = j;
        }
        j = space(b, j);
        if (j >= b.length) return more;
        const c = b.charCodeAt(j);
        if (c === 0x7d) break;
        if (c !== 0x2c) return other;
        j = space(b, j + 1);
        if (j >= b.length) return more;
      }
    const end = j + 1;
    if (tag === null || !elements) return other;
    if (innerStart >= 0 && !this.#plainValues(b, innerStart, innerEnd)) return other;
    if (suffixStart >= 0 && j > suffixStart && tag.suffix === undefined) {
      if (this.#suffixCount >= maxSuffixes) {
        this.#tags = new Map();
        this.#suffixCount = 0;
      }
      // A copy: a slice would keep the whole text it was cut from.
      tag.suffix = Buffer.from(b.slice(suffixStart, j), 'utf8').toString('utf8');
      this.#tags.set(tagCode(tag.tag, 0, tag.tag.length), tag);
      this.#suffixCount++;
    }
    this.end = end;
    return new PlainSegmentEvent('segment', tag.tag, b, innerStart, innerEnd, '","', this.#separator);
  }
}
