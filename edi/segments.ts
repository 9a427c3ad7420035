/**
 * Splits EDI text into segments as it streams in, one chunk at a time: it keeps only the part
 * of a segment not ended yet, so memory stays bounded by the longest segment allowed, however
 * large the interchange. White space between segments (line breaks, common in files) is ignored.
 */
import type { Delimiters } from './syntax.js';

export interface Segment {
  /** Its place in the interchange, counting from 1 (the ISA or UNA/UNB is 1). */
  position: number;
  tag: string;
  /**
   * Elements after the tag, `elements[0]` being element 01. EDIFACT release characters are still
   * in them, so a released component separator is not split later: read values with `plain` and
   * composites with `componentsOf`.
   */
  elements: string[];
}

/** Longest segment accepted: no standard segment comes near it, so more is not EDI. */
export const maxSegmentChars = 64 * 1024;

export class SegmentTooLong extends Error {
  constructor(readonly position: number) {
    super(`segment ${position} is longer than ${maxSegmentChars} characters`);
  }
}

export class SegmentSplitter {
  readonly #d: Delimiters;
  readonly #only: ReadonlySet<string> | undefined;
  #pending = '';
  #position = 0;

  /**
   * `only`: the tags wanted; other segments are counted (positions stay what they are) but not
   * split into elements nor returned. Reading an envelope wants a few tags of hundreds of
   * segments, and splitting them all was most of what it cost.
   */
  constructor(delimiters: Delimiters, only?: ReadonlySet<string>) {
    this.#d = delimiters;
    this.#only = only;
  }

  /** Segments ended so far, returned or not. */
  get count(): number {
    return this.#position;
  }

  /** Segments completed by this chunk. */
  push(chunk: string): Segment[] {
    const text = this.#pending + chunk;
    const out: Segment[] = [];
    const { segment: terminator, release } = this.#d;
    let start = 0;
    const take = (end: number) => {
      const segment = this.#segment(text.slice(start, end));
      start = end + 1;
      if (segment) out.push(segment);
    };
    if (release === '' || !text.includes(release)) {
      // Every terminator ends a segment: found by indexOf rather than by a look at every
      // character, which was most of what reading an envelope cost.
      for (let end = text.indexOf(terminator); end !== -1; end = text.indexOf(terminator, start)) take(end);
    } else {
      for (let i = 0; i < text.length; i++) {
        const c = text[i];
        // A release character makes the next character data, whatever it is.
        if (c === release) i++;
        else if (c === terminator) take(i);
      }
    }
    this.#pending = text.slice(start);
    if (this.#pending.length > maxSegmentChars) throw new SegmentTooLong(this.#position + 1);
    return out;
  }

  /** What is left after the last terminator: a segment that never ended, or nothing. */
  end(): { unterminated: string } | null {
    const rest = this.#pending.trim();
    this.#pending = '';
    return rest === '' ? null : { unterminated: rest };
  }

  #segment(raw: string): Segment | null {
    const trimmed = trimBetween(raw);
    if (trimmed === '') return null;
    this.#position += 1;
    if (this.#only && !this.#wanted(trimmed)) return null;
    const parts = splitUnreleased(trimmed, this.#d.element, this.#d.release, true);
    return { position: this.#position, tag: parts[0]!, elements: parts.slice(1) };
  }

  /** Whether the segment's tag is one asked for; a tag with a release character in it is split to tell. */
  #wanted(segment: string): boolean {
    const end = segment.indexOf(this.#d.element);
    const tag = end < 0 ? segment : segment.slice(0, end);
    if (this.#d.release !== '' && tag.includes(this.#d.release))
      return this.#only!.has(splitUnreleased(segment, this.#d.element, this.#d.release, true)[0]!.trim());
    return this.#only!.has(tag) || this.#only!.has(tag.trim());
  }
}

const isLineBreak = (c: string | undefined) => c === '\r' || c === '\n';
const isBetween = (c: string | undefined) =>
  c === ' ' || c === '\t' || c === '\v' || c === '\f' || isLineBreak(c);

/**
 * The text without what comes between segments in files: line breaks, and before the tag also
 * spaces or tabs (pyx12's examples end each segment with `~ ` and a line feed). A space at the
 * end stays: there it is the last element's data.
 */
function trimBetween(text: string): string {
  if (!isBetween(text[0]) && !isLineBreak(text[text.length - 1])) return text;
  return text.replace(/^[ \t\v\f\r\n]+/, '').replace(/[\r\n]+$/, '');
}

/**
 * Splits on `separator` where it is not preceded by the release character; the release
 * characters are removed unless `keepReleases` (a split that other splits follow).
 */
export function splitUnreleased(
  text: string,
  separator: string,
  release: string,
  keepReleases = false,
): string[] {
  if (release === '' || !text.includes(release)) return text.split(separator);
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === release && i + 1 < text.length) {
      current += keepReleases ? c + text[++i] : text[++i];
    } else if (c === separator) {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  return parts;
}

/** Components of an element (EDIFACT composite, X12 composite), release characters kept out. */
export function componentsOf(element: string | undefined, d: Delimiters): string[] {
  return splitUnreleased(element ?? '', d.component, d.release);
}

/** An element's value as data: release characters removed. */
export const plain = (element: string | undefined, d: Delimiters): string =>
  d.release === '' ? (element ?? '') : splitUnreleased(element ?? '', '\u0000', d.release)[0]!;
