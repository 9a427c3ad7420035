/**
 * A segment whose elements are all simple values holding no separator: most segments of most
 * interchanges. Where its values lie in the text it was read from is all either side needs, so
 * a reader hands it on as a place in that text and a writer copies it, instead of splitting it
 * into an element array and joining that again; the array is made only when a sink asks for
 * `segment`. Profiles of 50 MiB translations put most of their time in that splitting,
 * serialising and parsing. Both readers make them: the EDI reader (edi-reader.ts) from a segment's
 * EDI text, the JSON form's (json-plain-segment.ts) from its elements array, as UTF-8 bytes.
 * An envelope segment of simple values (ST, SE, GS…) is one too: the EDI reader's as an event
 * of its own type, the JSON reader's as the event's segment, which it stands in for
 * (`elements`, `toJSON`).
 */
import type { EdiEvent } from './events.js';
import type { ElementValue, SegmentJson } from './form.js';

/** The events that carry a segment and nothing else. */
export type PlainSegmentType = Exclude<EdiEvent['type'], 'start' | 'end'>;

export class PlainSegmentEvent {
  #segment: SegmentJson | null = null;

  /**
   * `source` from `start` to `end` holds the values with `between` between each two: the
   * element separator in EDI text, `","` in the JSON form's UTF-8 bytes; `start` is -1 when
   * there are none. No value holds a separator or a release character of the delimiters read
   * with (`separator` is their element separator), nor, from JSON, a quote, an escape or a
   * character beyond Latin-1. The writers read `source` a character (a byte) at a time: EDI
   * text is one flat string, as a slice of it is read at two thirds of the speed; the JSON
   * form is read as bytes, with no string made of it at all.
   */
  constructor(
    readonly type: PlainSegmentType,
    readonly tag: string,
    readonly source: string | Buffer,
    readonly start: number,
    readonly end: number,
    readonly between: string,
    readonly separator: string,
    /**
     * EDI text read as Latin-1: its bytes, at the same indices as `source`'s characters, else
     * null. The JSON writer copies a segment from them: a byte of a Buffer is read at about 1.7
     * times the speed of a string's character, whose representation V8 checks at each read.
     */
    readonly latin1: Buffer | null = null,
  ) {}

  /** Whether it was read from EDI text: its values are as they are written. */
  get fromEdi(): boolean {
    return typeof this.source === 'string';
  }

  get elements(): ElementValue[] {
    return this.segment.elements;
  }

  /** Serialised as the segment it stands for, not as its fields. */
  toJSON(): SegmentJson {
    return this.segment;
  }

  /** The same segment on a copy of its bytes, to be kept after the text it was read from is gone. */
  copy(): PlainSegmentEvent {
    const { source, start, end } = this;
    if (typeof source === 'string' || start < 0) return this;
    const bytes = Buffer.from(source.subarray(start, end));
    return new PlainSegmentEvent(this.type, this.tag, bytes, 0, bytes.length, this.between, this.separator);
  }

  get segment(): SegmentJson {
    this.#segment ??= { tag: this.tag, elements: this.start < 0 ? [] : this.#values().split(this.between) };
    return this.#segment;
  }

  #values(): string {
    const { source, start, end } = this;
    return typeof source === 'string' ? source.slice(start, end) : source.toString('utf8', start, end);
  }
}
