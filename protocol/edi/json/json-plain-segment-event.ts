/**
 * A plain segment as the JSON reader found it (json-plain-segment.ts): its tag, and where its
 * elements' text lies in the JSON text, between the first value's opening quote and the last
 * one's closing quote. The EDI writer copies those characters straight into its bytes, a `","`
 * becoming the separator, so no EDI string is made per segment; the text and the element array
 * are made only when a sink asks for them.
 */
import type { ElementValue, SegmentJson } from './form.js';

export class JsonPlainSegmentEvent {
  readonly type = 'segment';
  #segment: SegmentJson | null = null;

  /**
   * `source.slice(start, end)`: the values joined by `","`, none holding a quote, an escape, a
   * separator or a character beyond Latin-1; `start` is -1 when the elements array is empty.
   */
  constructor(
    readonly tag: string,
    readonly source: string,
    readonly start: number,
    readonly end: number,
    readonly separator: string,
  ) {}

  /** As a SegmentJson: a plain envelope segment (ST, SE…) is handed on as itself, so the EDI writer copies it too. */
  get elements(): ElementValue[] {
    return this.segment.elements;
  }

  /** Serialised as the segment it stands for, not as its fields. */
  toJSON(): SegmentJson {
    return this.segment;
  }

  get segment(): SegmentJson {
    this.#segment ??= {
      tag: this.tag,
      elements: this.start < 0 ? [] : this.source.slice(this.start, this.end).split('","'),
    };
    return this.#segment;
  }
}
