/**
 * Writes events (events.ts) as the JSON form's text, one segment per line, as they come: the
 * text of a 50 MiB interchange is produced without the document ever being in memory whole.
 * The properties come in the order a reader of the form needs them (standard and delimiters
 * first), which json-reader.ts relies on to stream back.
 */
import type { EdiEvent, EventSink } from './events.js';
import { formName, setsKey, type EdiJsonStandard, type SegmentJson } from './form.js';
import { PlainSegmentEvent } from './plain-segment.js';

/**
 * Adds annotations (names, positions) to a segment; the identity when none are wanted. `plain`,
 * when there, gives a plain segment's annotations as the JSON text that follows its elements.
 */
export type Annotator = ((s: SegmentJson, standard: EdiJsonStandard) => SegmentJson) & {
  plain?: (
    tag: string,
    count: number,
    values: PlainSegmentEvent | readonly string[],
    standard: EdiJsonStandard,
  ) => string;
};

/** What JSON.stringify would escape: the text of a segment holding one is serialised by it. */
// eslint-disable-next-line no-control-regex
const needsEscape = /["\\\u0000-\u001f\ud800-\udfff]/;

export class JsonTextWriter implements EventSink {
  #text = '';
  #standard: EdiJsonStandard = 'x12';
  /** Whether an item was written in the innermost open array. */
  #first = true;
  /** EDIFACT: whether the top-level list (groups or messages) was opened. */
  #listOpen = false;

  constructor(readonly annotate: Annotator | null = null) {}

  #segment(s: SegmentJson): string {
    if (this.annotate?.plain && s.elements.every((v) => typeof v === 'string')) {
      // The envelope's segments: simple values, annotated from the table as plain ones are.
      const annotations = this.annotate.plain(
        s.tag,
        s.elements.length,
        s.elements as string[],
        this.#standard,
      );
      return `{"tag":${JSON.stringify(s.tag)},"elements":${JSON.stringify(s.elements)}${annotations}}`;
    }
    return JSON.stringify(this.annotate ? this.annotate(s, this.#standard) : s);
  }

  /** A plain segment's JSON text made from its EDI text: separators become `","`. */
  #plain(e: PlainSegmentEvent): string {
    if (needsEscape.test(e.text) || (this.annotate && !this.annotate.plain)) return this.#segment(e.segment);
    const empty = e.text.length === e.tag.length;
    const elements = empty
      ? '[]'
      : '["' + e.text.slice(e.tag.length + 1).replaceAll(e.separator, '","') + '"]';
    let annotations = '';
    if (this.annotate) {
      let count = 0;
      if (!empty) for (let i = e.tag.length; i !== -1; i = e.text.indexOf(e.separator, i + 1)) count++;
      annotations = this.annotate.plain!(e.tag, count, e, this.#standard);
    }
    return '{"tag":"' + e.tag + '","elements":' + elements + annotations + '}';
  }

  event(e: EdiEvent): void {
    switch (e.type) {
      case 'start':
        this.#standard = e.standard;
        this.#text += `{"format":${JSON.stringify(formName)},"standard":"${e.standard}","delimiters":${JSON.stringify(e.delimiters)},"una":${JSON.stringify(e.una)},"leading":${JSON.stringify(e.leading)},"line_break":${JSON.stringify(e.line_break)},\n`;
        return;
      case 'interchange':
        this.#text += `"header":${this.#segment(e.segment)},\n`;
        return;
      case 'group':
        this.#openList('groups');
        this.#text += `${this.#comma()}{"header":${this.#segment(e.segment)},"${setsKey(this.#standard)}":[`;
        this.#first = true;
        return;
      case 'set':
        if (!this.#listOpen) this.#openList('messages');
        this.#text += `${this.#comma()}{"header":${this.#segment(e.segment)},"segments":[`;
        this.#first = true;
        return;
      case 'segment':
        this.#text +=
          this.#comma() + (e instanceof PlainSegmentEvent ? this.#plain(e) : this.#segment(e.segment));
        return;
      case 'set-end':
        this.#text += `],\n"trailer":${this.#segment(e.segment)}}`;
        this.#first = false;
        return;
      case 'group-end':
        this.#text += `],\n"trailer":${this.#segment(e.segment)}}`;
        this.#first = false;
        return;
      case 'end':
        if (!this.#listOpen) this.#openList(this.#standard === 'x12' ? 'groups' : 'messages');
        this.#text += `],\n"trailer":${this.#segment(e.segment)},"trailing":${JSON.stringify(e.trailing)}}\n`;
        return;
    }
  }

  #openList(key: string): void {
    if (this.#listOpen) return;
    this.#listOpen = true;
    this.#text += `"${key}":[`;
    this.#first = true;
  }

  #comma(): string {
    if (this.#first) {
      this.#first = false;
      return '\n';
    }
    return ',\n';
  }

  /** The text written since the last call. */
  take(): string {
    const out = this.#text;
    this.#text = '';
    return out;
  }
}
