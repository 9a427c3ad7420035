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
import { LastView } from './data-view.js';
import { Utf8Output } from './utf8-output.js';

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
  /** What `plain` gives whatever the values are, when it does (no meanings); else null. */
  fixed?: (tag: string, count: number, standard: EdiJsonStandard) => string | null;
};

/** What a plain segment's JSON is made of around its values, per tag (JsonTextWriter#kinds). */
interface SegmentKind {
  /** `{"tag":"…","elements":` as bytes. */
  opening: Words;
  /**
   * By element count, the annotations and the closing brace as bytes when they are the same for
   * every such segment, null when they depend on the values; none yet before the first.
   */
  closings: (Words | null | undefined)[];
}

/**
 * Bytes written again and again (a kind's opening, its closings), as their little-endian 32-bit
 * words and the one to three bytes left: copied four bytes at a time through the output's
 * DataView (copyWords), where a loop a byte at a time checked and stored each, and `set` was a
 * call for each.
 */
class Words {
  readonly words: Int32Array;
  readonly tail: Buffer;

  constructor(readonly bytes: Buffer) {
    this.words = new Int32Array(bytes.length >> 2);
    for (let k = 0; k < this.words.length; k++) this.words[k] = bytes.readInt32LE(4 * k);
    this.tail = bytes.subarray(4 * this.words.length);
  }
}

/** Copies `w` into `out` (`view` is its DataView) at `o`, answering the index after it. */
function copyWords(out: Buffer, view: DataView, o: number, w: Words): number {
  const words = w.words;
  for (let k = 0; k < words.length; k++, o += 4) view.setInt32(o, words[k]!, true);
  const tail = w.tail;
  for (let k = 0; k < tail.length; k++) out[o++] = tail[k]!;
  return o;
}

const ones = 0x01010101;
const highs = 0x80808080 | 0;

/**
 * Whether any of the four bytes of `v` is not copied as it is into a JSON string: a byte of
 * `sepWord` (the element separator in each byte), a quote, a backslash, a control character or a
 * byte beyond ASCII. The high bit of a byte of `x - ones & ~x` is set where a byte of `x` is 0
 * (and maybe above one that is: a false alarm only sends the bytes to the loop a byte at a time).
 */
function special(v: number, sepWord: number): number {
  const s = v ^ sepWord;
  const q = v ^ 0x22222222;
  const b = v ^ 0x5c5c5c5c;
  return (v | ((v - 0x20202020) & ~v) | ((s - ones) & ~s) | ((q - ones) & ~q) | ((b - ones) & ~b)) & highs;
}

/** Element counts whose closings are kept: more is no real segment. */
const maxKeptCount = 256;

const quote = 0x22;
/** Texts and tags kept as bytes: kinds of segment are few in real interchanges, a hostile one could make many. */
const maxRepeated = 1000;

export class JsonTextWriter implements EventSink {
  /**
   * The JSON as UTF-8 bytes: a plain segment's JSON is copied into it from its EDI text a
   * character at a time, with no string per segment.
   */
  #out = new Utf8Output();
  /** Text added again and again, as its UTF-8 bytes (#appendRepeated). */
  #repeated = new Map<string, Buffer>();
  /** `{"tag":"…","elements":` per tag, as its bytes (#opening). */
  #openings = new Map<string, Buffer>();
  /**
   * Per tag, what a plain segment's JSON is around its values: one lookup per segment, by the
   * reader's string for the tag (one per tag, its hash kept), instead of three by text.
   */
  #kinds = new Map<string, SegmentKind>();
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
    // A character below 256 is at most two bytes.
    most *= 2;
    const output = this.#out;
    output.room(most);
    const out = output.buffer;
    let o = output.length;
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
        if (c < 0x80) out[o++] = c;
        else {
          out[o++] = 0xc0 | (c >> 6);
          out[o++] = 0x80 | (c & 0x3f);
        }
      }
      out[o++] = quote;
    }
    out[o++] = 0x5d;
    output.length = o;
    this.#appendRepeated(this.annotate!.plain!(tag, elements.length, elements as string[], this.#standard));
    output.room(1);
    output.buffer[output.length++] = 0x7d;
    return true;
  }

  /** An envelope segment: copied as #plain copies one when it is plain. */
  #envelope(e: Extract<EdiEvent, { segment: SegmentJson }>): void {
    if (!(e instanceof PlainSegmentEvent && this.#plain(e, false))) this.#writeSegment(e.segment);
  }

  /**
   * A plain segment's JSON written from its EDI text (after a comma and a line break when it is
   * an item of a list): separators become `","`. A value holding a character JSON.stringify
   * escapes (or one beyond Latin-1) sends it to the general path: false, with nothing written.
   */
  #plain(e: PlainSegmentEvent, item: boolean): boolean {
    const { tag, source, start, end, between } = e;
    if ((this.annotate && !this.annotate.plain) || typeof source !== 'string') return false;
    // Each character at most three bytes (a separator as `","`), and the fixed parts.
    const output = this.#out;
    output.room(3 * Math.max(0, end - start) + 40);
    const first = output.length;
    const out = output.buffer;
    let o = first;
    // The comma before a segment, then its tag's opening: bytes kept per tag.
    const wasFirst = this.#first;
    if (item) {
      if (wasFirst) this.#first = false;
      else out[o++] = 0x2c;
      out[o++] = 0x0a;
    }
    const kind = this.#kind(tag);
    const view = output.view;
    o = copyWords(out, view, o, kind.opening);
    let count = 0;
    if (start < 0) {
      out[o++] = 0x5b;
      out[o++] = 0x5d;
    } else {
      const sep = between.charCodeAt(0);
      out[o++] = 0x5b;
      out[o++] = quote;
      count = 1;
      // The same loop twice: over the Latin-1 bytes when the reader has them, else over the text
      // (EDI → JSON spent two fifths of its time in this method). The bytes are read four at a
      // time while none needs more than copying, and stored so; a byte of a Buffer is read at
      // about 1.7 times the speed of a string's character, and a word at 1.4 times bytes.
      const latin1 = e.latin1;
      if (latin1 !== null) {
        const bytes = this.#latin1View.of(latin1);
        const sepWord = Math.imul(sep, ones);
        for (let i = start; i < end; i++) {
          for (; i + 4 <= end; i += 4) {
            const v = bytes.getInt32(i, true);
            if (special(v, sepWord) !== 0) break;
            view.setInt32(o, v, true);
            o += 4;
          }
          if (i === end) break;
          const c = latin1[i]!;
          if (c === sep) {
            out[o++] = quote;
            out[o++] = 0x2c;
            out[o++] = quote;
            count++;
          } else if (c === quote || c === 0x5c || c < 0x20) {
            output.length = first;
            this.#first = wasFirst;
            return false;
          } else if (c < 0x80) out[o++] = c;
          else {
            out[o++] = 0xc0 | (c >> 6);
            out[o++] = 0x80 | (c & 0x3f);
          }
        }
      } else
        for (let i = start; i < end; i++) {
          const c = source.charCodeAt(i);
          if (c === sep) {
            out[o++] = quote;
            out[o++] = 0x2c;
            out[o++] = quote;
            count++;
          } else if (c === quote || c === 0x5c || c < 0x20 || c > 0xff) {
            output.length = first;
            this.#first = wasFirst;
            return false;
          } else if (c < 0x80) out[o++] = c;
          else {
            out[o++] = 0xc0 | (c >> 6);
            out[o++] = 0x80 | (c & 0x3f);
          }
        }
      out[o++] = quote;
      out[o++] = 0x5d;
    }
    output.length = o;
    const closing = count < maxKeptCount ? this.#closing(kind, tag, count) : null;
    if (closing !== null) {
      output.room(closing.bytes.length);
      output.length = copyWords(output.buffer, output.view, output.length, closing);
      return true;
    }
    if (this.annotate) this.#appendRepeated(this.annotate.plain!(tag, count, e, this.#standard));
    output.room(1);
    output.buffer[output.length++] = 0x7d;
    return true;
  }

  /** The Latin-1 bytes plain segments are read from, as a DataView: one per push of the reader. */
  readonly #latin1View = new LastView();

  #kind(tag: string): SegmentKind {
    let kind = this.#kinds.get(tag);
    if (kind === undefined) {
      // Kinds of segment are few in real interchanges; a hostile one could make them many.
      if (this.#kinds.size >= maxRepeated) this.#kinds.clear();
      kind = { opening: new Words(this.#opening(tag)), closings: [] };
      this.#kinds.set(tag, kind);
    }
    return kind;
  }

  /** The annotations and closing brace of a segment of `count` elements of a kind, when fixed. */
  #closing(kind: SegmentKind, tag: string, count: number): Words | null {
    let closing = kind.closings[count];
    if (closing === undefined) {
      const annotations = this.annotate ? (this.annotate.fixed?.(tag, count, this.#standard) ?? null) : '';
      closing = annotations === null ? null : new Words(Buffer.from(`${annotations}}`, 'utf8'));
      kind.closings[count] = closing;
    }
    return closing;
  }

  #append(s: string): void {
    this.#out.text(s);
  }

  /**
   * Adds text that comes again and again (a plain segment's annotations, the same for every
   * segment of its kind): its bytes are kept, and copied in one step instead of a character at
   * a time, which was a fifth of EDI → JSON.
   */
  #appendRepeated(s: string): void {
    let bytes = this.#repeated.get(s);
    if (bytes === undefined) {
      if (s.length < 16) return this.#append(s);
      // Kinds of segment are few in real interchanges; a hostile one could make them many.
      if (this.#repeated.size >= maxRepeated) this.#repeated.clear();
      bytes = Buffer.from(s, 'utf8');
      this.#repeated.set(s, bytes);
    }
    this.#out.bytes(bytes);
  }

  /** `{"tag":"…","elements":` for a tag, as bytes. */
  #opening(tag: string): Buffer {
    let bytes = this.#openings.get(tag);
    if (bytes === undefined) {
      if (this.#openings.size >= maxRepeated) this.#openings.clear();
      bytes = Buffer.from(`{"tag":"${tag}","elements":`, 'utf8');
      this.#openings.set(tag, bytes);
    }
    return bytes;
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
        this.#envelope(e);
        this.#append(',\n');
        return;
      case 'group':
        this.#openList('groups');
        this.#append(`${this.#comma()}{"header":`);
        this.#envelope(e);
        this.#append(`,"${setsKey(this.#standard)}":[`);
        this.#first = true;
        return;
      case 'set':
        if (!this.#listOpen) this.#openList('messages');
        this.#append(`${this.#comma()}{"header":`);
        this.#envelope(e);
        this.#append(',"segments":[');
        this.#first = true;
        return;
      case 'segment':
        if (!(e instanceof PlainSegmentEvent && this.#plain(e, true)))
          this.#append(this.#comma() + this.#segment(e.segment));
        return;
      case 'set-end':
        this.#append('],\n"trailer":');
        this.#envelope(e);
        this.#append('}');
        this.#first = false;
        return;
      case 'group-end':
        this.#append('],\n"trailer":');
        this.#envelope(e);
        this.#append('}');
        this.#first = false;
        return;
      case 'end':
        if (!this.#listOpen) this.#openList(this.#standard === 'x12' ? 'groups' : 'messages');
        this.#append('],\n"trailer":');
        this.#envelope(e);
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

  /** Bytes written and not taken yet. */
  get size(): number {
    return this.#out.size;
  }

  /** The JSON's UTF-8 bytes written since the last call. */
  take(): Buffer[] {
    return this.#out.take();
  }
}
