/**
 * A segment whose elements are all simple values holding no separator: most segments of most
 * interchanges. Its EDI text (without the terminator) is all either side needs, so a reader
 * hands it on as text and a writer copies it, instead of splitting it into an element array
 * and joining that again; the array is made only when a sink asks for `segment`. Profiles of
 * 50 MiB translations put most of their time in that splitting, serialising and parsing.
 */
import type { SegmentJson } from './form.js';

export class PlainSegmentEvent {
  readonly type = 'segment';
  #segment: SegmentJson | null = null;

  /**
   * `source.slice(start, end)` is the segment's text: the tag, then each element after
   * `separator`; no element holds a separator, a release character or (when it came from JSON)
   * a character that needs escaping there. The writer of JSON reads it from `source`, which is
   * one flat string: a slice of it is read character by character at two thirds of the speed.
   */
  constructor(
    readonly tag: string,
    readonly source: string,
    readonly start: number,
    readonly end: number,
    readonly separator: string,
  ) {}

  get text(): string {
    return this.source.slice(this.start, this.end);
  }

  get segment(): SegmentJson {
    this.#segment ??= {
      tag: this.tag,
      elements:
        this.end - this.start === this.tag.length
          ? []
          : this.source.slice(this.start + this.tag.length + 1, this.end).split(this.separator),
    };
    return this.#segment;
  }
}
