/**
 * Writes events (events.ts) as the JSON form's text, one segment per line, as they come: the
 * text of a 50 MiB interchange is produced without the document ever being in memory whole.
 * The properties come in the order a reader of the form needs them (standard and delimiters
 * first), which json-reader.ts relies on to stream back.
 */
import type { EdiEvent, EventSink } from './events.js';
import { formName, setsKey, type EdiJsonStandard, type SegmentJson } from './form.js';
import { PlainSegmentEvent } from './plain-segment.js';
import { tagCode } from './tag-code.js';

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

/** The output buffer's size: the JSON of a slice of EDI (16 KiB, about 66 KiB of JSON) fits. */
const outputChars = 256 * 1024;
const quote = 0x22;
/** Texts and tags kept as bytes: kinds of segment are few in real interchanges, a hostile one could make many. */
const maxRepeated = 1000;

export class JsonTextWriter implements EventSink {
  /** Text written before the buffer, when a string beyond Latin-1 or a long one came. */
  #text = '';
  /**
   * The text written since then, one Latin-1 character per byte: a plain segment's JSON is
   * copied into it from its EDI text a character at a time, with no string per segment, and the
   * whole made one string at take().
   */
  #out = Buffer.allocUnsafe(outputChars);
  #length = 0;
  /** Text added again and again, as its Latin-1 bytes (#appendRepeated). */
  #repeated = new Map<string, Buffer>();
  /** `{"tag":"…","elements":` per tag, as its bytes (#opening). */
  #openings = new Map<string, Buffer>();
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

  /** Writes a segment that is not plain: the envelope's, or one with composites or escapes. */
  #writeSegment(s: SegmentJson): void {
    if (!this.annotate?.plain || !this.#writeSimple(s)) this.#append(this.#segment(s));
  }

  /**
   * An annotated segment of simple values holding nothing JSON escapes (the envelope's, mostly),
   * written into the buffer as #segment writes it, without JSON.stringify and a template string;
   * false, with nothing written, for any other.
   */
  #writeSimple(s: SegmentJson): boolean {
    const { tag, elements } = s;
    if (tagCode(tag, 0, tag.length) < 0) return false;
    let most = 40;
    for (const v of elements) {
      if (typeof v !== 'string') return false;
      most += v.length + 3;
    }
    this.#room(most);
    if (most > this.#out.length) return false;
    const out = this.#out;
    let o = this.#length;
    const opening = this.#opening(tag);
    for (let i = 0; i < opening.length; i++) out[o++] = opening[i]!;
    out[o++] = 0x5b;
    for (let i = 0; i < elements.length; i++) {
      if (i > 0) out[o++] = 0x2c;
      out[o++] = quote;
      const v = elements[i] as string;
      for (let k = 0; k < v.length; k++) {
        const c = v.charCodeAt(k);
        if (c === quote || c === 0x5c || c < 0x20 || c > 0xff) return false;
        out[o++] = c;
      }
      out[o++] = quote;
    }
    out[o++] = 0x5d;
    this.#length = o;
    this.#appendRepeated(this.annotate!.plain!(tag, elements.length, elements as string[], this.#standard));
    this.#room(1);
    this.#out[this.#length++] = 0x7d;
    return true;
  }

  /**
   * A plain segment's JSON written from its EDI text: separators become `","`. A value holding a
   * character JSON.stringify escapes (or one beyond Latin-1) sends it to the general path.
   */
  #plain(e: PlainSegmentEvent): void {
    if (this.annotate && !this.annotate.plain) return this.#append(this.#comma() + this.#segment(e.segment));
    const { tag, source, start, end, separator } = e;
    // Each character at most three (a separator as `","`), and the fixed parts.
    const most = 3 * (end - start) + 40;
    if (this.#length + most > this.#out.length) this.#flush();
    if (most > this.#out.length) return this.#append(this.#comma() + this.#segment(e.segment));
    const first = this.#length;
    const out = this.#out;
    let o = this.#length;
    // The comma before a segment, then its tag's opening: bytes kept per tag, copied in a loop.
    const wasFirst = this.#first;
    if (wasFirst) this.#first = false;
    else out[o++] = 0x2c;
    out[o++] = 0x0a;
    const opening = this.#opening(tag);
    for (let i = 0; i < opening.length; i++) out[o++] = opening[i]!;
    let count = 0;
    if (end - start === tag.length) {
      out[o++] = 0x5b;
      out[o++] = 0x5d;
    } else {
      const sep = separator.charCodeAt(0);
      out[o++] = 0x5b;
      out[o++] = quote;
      count = 1;
      for (let i = start + tag.length + 1; i < end; i++) {
        const c = source.charCodeAt(i);
        if (c === sep) {
          out[o++] = quote;
          out[o++] = 0x2c;
          out[o++] = quote;
          count++;
        } else if (c === quote || c === 0x5c || c < 0x20 || c > 0xff) {
          this.#length = first;
          this.#first = wasFirst;
          return this.#append(this.#comma() + this.#segment(e.segment));
        } else out[o++] = c;
      }
      out[o++] = quote;
      out[o++] = 0x5d;
    }
    this.#length = o;
    if (this.annotate) this.#appendRepeated(this.annotate.plain!(tag, count, e, this.#standard));
    this.#room(1);
    this.#out[this.#length++] = 0x7d;
  }

  /** Adds text: into the buffer while it is Latin-1, else after what the buffer holds. */
  #append(s: string): void {
    if (this.#length + s.length > this.#out.length) this.#flush();
    if (s.length > this.#out.length) {
      this.#text += s;
      return;
    }
    const out = this.#out;
    let o = this.#length;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c > 0xff) {
        this.#length = o;
        this.#flush();
        this.#text += s.slice(i);
        return;
      }
      out[o++] = c;
    }
    this.#length = o;
  }

  /**
   * Adds text that comes again and again (a plain segment's annotations, the same for every
   * segment of its kind): its bytes are kept, and copied in one step instead of a character at
   * a time, which was a fifth of EDI → JSON.
   */
  #appendRepeated(s: string): void {
    let bytes = this.#repeated.get(s);
    if (bytes === undefined) {
      // eslint-disable-next-line no-control-regex
      if (s.length < 16 || /[^\u0000-\u00ff]/.test(s)) return this.#append(s);
      // Kinds of segment are few in real interchanges; a hostile one could make them many.
      if (this.#repeated.size >= maxRepeated) this.#repeated.clear();
      bytes = Buffer.from(s, 'latin1');
      this.#repeated.set(s, bytes);
    }
    if (this.#length + bytes.length > this.#out.length) this.#flush();
    if (bytes.length > this.#out.length) return this.#append(s);
    this.#out.set(bytes, this.#length);
    this.#length += bytes.length;
  }

  /** `{"tag":"…","elements":` for a tag, as bytes. */
  #opening(tag: string): Buffer {
    let bytes = this.#openings.get(tag);
    if (bytes === undefined) {
      if (this.#openings.size >= maxRepeated) this.#openings.clear();
      bytes = Buffer.from(`{"tag":"${tag}","elements":`, 'latin1');
      this.#openings.set(tag, bytes);
    }
    return bytes;
  }

  /** Room for `bytes` more in the buffer. */
  #room(bytes: number): void {
    if (this.#length + bytes > this.#out.length) this.#flush();
  }

  #flush(): void {
    if (this.#length === 0) return;
    this.#text += this.#out.toString('latin1', 0, this.#length);
    this.#length = 0;
  }

  event(e: EdiEvent): void {
    switch (e.type) {
      case 'start':
        this.#standard = e.standard;
        this.#append(
          `{"format":${JSON.stringify(formName)},"standard":"${e.standard}","delimiters":${JSON.stringify(e.delimiters)},"una":${JSON.stringify(e.una)},"leading":${JSON.stringify(e.leading)},"line_break":${JSON.stringify(e.line_break)},\n`,
        );
        return;
      case 'interchange':
        this.#append('"header":');
        this.#writeSegment(e.segment);
        this.#append(',\n');
        return;
      case 'group':
        this.#openList('groups');
        this.#append(`${this.#comma()}{"header":`);
        this.#writeSegment(e.segment);
        this.#append(`,"${setsKey(this.#standard)}":[`);
        this.#first = true;
        return;
      case 'set':
        if (!this.#listOpen) this.#openList('messages');
        this.#append(`${this.#comma()}{"header":`);
        this.#writeSegment(e.segment);
        this.#append(',"segments":[');
        this.#first = true;
        return;
      case 'segment':
        if (e instanceof PlainSegmentEvent) this.#plain(e);
        else this.#append(this.#comma() + this.#segment(e.segment));
        return;
      case 'set-end':
        this.#append('],\n"trailer":');
        this.#writeSegment(e.segment);
        this.#append('}');
        this.#first = false;
        return;
      case 'group-end':
        this.#append('],\n"trailer":');
        this.#writeSegment(e.segment);
        this.#append('}');
        this.#first = false;
        return;
      case 'end':
        if (!this.#listOpen) this.#openList(this.#standard === 'x12' ? 'groups' : 'messages');
        this.#append('],\n"trailer":');
        this.#writeSegment(e.segment);
        this.#append(`,"trailing":${JSON.stringify(e.trailing)}}\n`);
        return;
    }
  }

  #openList(key: string): void {
    if (this.#listOpen) return;
    this.#listOpen = true;
    this.#append(`"${key}":[`);
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
    this.#flush();
    const out = this.#text;
    this.#text = '';
    return out;
  }
}
