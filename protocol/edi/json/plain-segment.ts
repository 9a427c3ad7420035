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
   * `text`: the tag, then each element after `separator`; no element holds a separator, a
   * release character or (when it came from JSON) a character that needs escaping there.
   */
  constructor(
    readonly tag: string,
    readonly text: string,
    readonly separator: string,
  ) {}

  get segment(): SegmentJson {
    this.#segment ??= {
      tag: this.tag,
      elements:
        this.text.length === this.tag.length
          ? []
          : this.text.slice(this.tag.length + 1).split(this.separator),
    };
    return this.#segment;
  }
}
