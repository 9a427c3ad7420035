/**
 * Splits EDI text into segments as it streams in, one chunk at a time: it keeps only the part
 * of a segment not ended yet, so memory stays bounded by the longest segment allowed, however
 * large the interchange. Line breaks between segments (common in files) are ignored.
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
  #pending = '';
  #position = 0;

  constructor(delimiters: Delimiters) {
    this.#d = delimiters;
  }

  /** Segments completed by this chunk. */
  push(chunk: string): Segment[] {
    const text = this.#pending + chunk;
    const out: Segment[] = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (this.#d.release !== '' && c === this.#d.release) {
        i++; // the next character is data, whatever it is
        continue;
      }
      if (c === this.#d.segment) {
        const raw = text.slice(start, i);
        start = i + 1;
        const segment = this.#segment(raw);
        if (segment) out.push(segment);
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
    const trimmed = raw.replace(/^[\r\n]+/, '').replace(/[\r\n]+$/, '');
    if (trimmed === '') return null;
    const parts = splitUnreleased(trimmed, this.#d.element, this.#d.release, true);
    this.#position += 1;
    return { position: this.#position, tag: parts[0]!, elements: parts.slice(1) };
  }
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
