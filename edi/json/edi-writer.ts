/**
 * Writes events (events.ts) as EDI bytes, one segment at a time, and checks on the way what
 * would make the bytes unreadable or mean something else: envelope segments where they belong,
 * values with separators X12 cannot carry, characters the interchange's encoding lacks. A
 * refusal names the segment (counted from 1, as a reader counts) and the element.
 */
import { x12Delimiters } from '../syntax.js';
import { writeSegment } from './elements.js';
import { PlainSegmentEvent } from './plain-segment.js';
import type { EdiEvent, EventSink, TextEncoding } from './events.js';
import {
  EdiJsonError,
  envelopeTags,
  type DelimitersJson,
  type EdiJsonStandard,
  type SegmentJson,
} from './form.js';

// eslint-disable-next-line no-control-regex
const beyondLatin1 = /[^\u0000-\u00ff]/;

/** The output buffer's size: jsonToEdi hands it on at three quarters full, after a slice of JSON. */
const outputBytes = 256 * 1024;

export class EdiWriter implements EventSink {
  /**
   * The bytes written since the last take: plain segments from JSON are copied into it a
   * character at a time, without an EDI string per segment; everything else is encoded into it.
   */
  #out = Buffer.allocUnsafe(outputBytes);
  #length = 0;
  /** The element separator, and the terminator with the line break, as bytes in the encoding. */
  #separatorBytes = Buffer.alloc(0);
  #endBytes = Buffer.alloc(0);
  #standard: EdiJsonStandard = 'x12';
  #d: DelimitersJson | null = null;
  #lineBreak = '';
  #position = 0;
  #encoding: TextEncoding = 'latin1';
  #pendingStart = '';
  #envelope = new Set<string>();

  event(e: EdiEvent): void {
    switch (e.type) {
      case 'start':
        this.#standard = e.standard;
        this.#d = e.delimiters;
        this.#lineBreak = e.line_break;
        this.#pendingStart = e.leading + (e.una === null ? '' : e.una + e.line_break);
        this.#envelope = new Set(Object.values(envelopeTags[e.standard]).flat());
        return;
      case 'interchange':
        this.#interchange(e.segment);
        return;
      case 'group':
        return this.#write(e.segment, envelopeTags[this.#standard].group[0]);
      case 'set':
        return this.#write(e.segment, envelopeTags[this.#standard].set[0]);
      case 'segment':
        if (e instanceof PlainSegmentEvent && e.separator === this.#d!.element) return this.#writePlain(e);
        return this.#write(e.segment, null);
      case 'set-end':
        return this.#write(e.segment, envelopeTags[this.#standard].set[1]);
      case 'group-end':
        return this.#write(e.segment, envelopeTags[this.#standard].group[1]);
      case 'end':
        this.#write(e.segment, envelopeTags[this.#standard].interchange[1], e.trailing);
        return;
    }
  }

  /** Bytes written and not taken yet. */
  get size(): number {
    return this.#length;
  }

  /** The bytes written since the last call. */
  take(): Buffer {
    const out = this.#out.subarray(0, this.#length);
    // A new buffer, not the old one cleared: what was handed on may not have been written yet.
    this.#out = Buffer.allocUnsafe(outputBytes);
    this.#length = 0;
    return out;
  }

  /** Room for `bytes` more in the output buffer. */
  #room(bytes: number): void {
    if (this.#length + bytes <= this.#out.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(2 * this.#out.length, this.#length + bytes));
    this.#out.copy(bigger, 0, 0, this.#length);
    this.#out = bigger;
  }

  #put(text: string): void {
    this.#room(3 * text.length);
    this.#length += this.#out.write(text, this.#length, this.#encoding === 'utf-8' ? 'utf8' : 'latin1');
  }

  #interchange(s: SegmentJson): void {
    const tag = envelopeTags[this.#standard].interchange[0];
    if (this.#standard === 'edifact') {
      const syntax = Array.isArray(s?.elements?.[0]) ? s.elements[0][0] : s?.elements?.[0];
      this.#encoding = syntax === 'UNOW' || syntax === 'UNOY' ? 'utf-8' : 'latin1';
    }
    const encoding = this.#encoding === 'utf-8' ? 'utf8' : 'latin1';
    this.#separatorBytes = Buffer.from(this.#d!.element, encoding);
    this.#endBytes = Buffer.from(this.#d!.segment + this.#lineBreak, encoding);
    this.#put(this.#check(this.#pendingStart, 0, 'the leading text'));
    this.#write(s, tag);
    if (this.#standard === 'x12') {
      // ISA is read by fixed offsets: what was written must give back the delimiters it was written with.
      const isa = writeSegment(s, this.#d!, 1, true);
      const read = x12Delimiters(isa);
      if (typeof read === 'string')
        throw new EdiJsonError(`segment 1 (ISA): ${read}`, { segment: 1, tag: 'ISA' });
      for (const key of ['segment', 'element', 'component', 'repetition'] as const)
        if (read[key] !== this.#d![key])
          throw new EdiJsonError(
            `segment 1 (ISA) gives the ${key} separator as ${JSON.stringify(read[key])}, delimiters say ${JSON.stringify(this.#d![key])}`,
            {
              segment: 1,
              tag: 'ISA',
              element: key === 'component' ? 16 : key === 'repetition' ? 11 : undefined,
            },
          );
    }
  }

  #write(s: SegmentJson, expected: string | null, trailing?: string): void {
    const position = ++this.#position;
    const tag = typeof s === 'object' && s !== null ? s.tag : undefined;
    if (expected !== null && tag !== expected)
      throw new EdiJsonError(`segment ${position} must be ${expected}, not ${JSON.stringify(tag)}`, {
        segment: position,
        tag: expected,
      });
    if (expected === null && typeof tag === 'string' && this.#envelope.has(tag))
      throw new EdiJsonError(`segment ${position} (${tag}) is an envelope segment inside a set's segments`, {
        segment: position,
        tag,
      });
    const flat = this.#standard === 'x12' && position === 1;
    if (s instanceof PlainSegmentEvent && s.separator === this.#d!.element && !flat && trailing === undefined)
      return this.#copyPlain(s);
    const text = writeSegment(s, this.#d!, position, flat);
    this.#put(this.#check(text, position, s) + (trailing ?? this.#lineBreak));
  }

  /** A plain segment (plain-segment.ts) is copied: only its place is checked. */
  #writePlain(e: PlainSegmentEvent): void {
    this.#placePlain(e.tag);
    this.#copyPlain(e);
  }

  /**
   * From EDI text, read with these delimiters, the values are as written; from JSON, their
   * UTF-8 bytes are copied a byte at a time, a `","` becoming the separator, with no EDI string
   * made. A character beyond ASCII there is two bytes (C2 or C3 and one more, json-plain-segment.ts):
   * copied as they are into UTF-8, made the one byte of its code into Latin-1.
   */
  #copyPlain(e: PlainSegmentEvent): void {
    const { tag, source, start, end } = e;
    if (typeof source === 'string') {
      const values = start < 0 ? '' : e.between + source.slice(start, end);
      return this.#put(tag + values + this.#d!.segment + this.#lineBreak);
    }
    const separator = this.#separatorBytes;
    const ending = this.#endBytes;
    // A value's bytes are at most as many again; a separator replaces three bytes.
    this.#room(tag.length + separator.length + Math.max(0, end - start) + ending.length);
    const out = this.#out;
    let o = this.#length;
    for (let i = 0; i < tag.length; i++) out[o++] = tag.charCodeAt(i);
    if (start >= 0) {
      for (let i = 0; i < separator.length; i++) out[o++] = separator[i]!;
      const utf8 = this.#encoding === 'utf-8';
      for (let k = start; k < end; k++) {
        const c = source[k]!;
        if (c === 0x22) {
          for (let i = 0; i < separator.length; i++) out[o++] = separator[i]!;
          k += 2;
        } else if (c < 0x80) out[o++] = c;
        else if (utf8) {
          out[o++] = c;
          out[o++] = source[++k]!;
        } else out[o++] = ((c & 0x1f) << 6) | (source[++k]! & 0x3f);
      }
    }
    for (let i = 0; i < ending.length; i++) out[o++] = ending[i]!;
    this.#length = o;
  }

  /** A segment inside a set's segments: counted, and refused when it is an envelope segment. */
  #placePlain(tag: string): void {
    const position = ++this.#position;
    if (this.#envelope.has(tag))
      throw new EdiJsonError(`segment ${position} (${tag}) is an envelope segment inside a set's segments`, {
        segment: position,
        tag,
      });
  }

  #check(text: string, position: number, s: SegmentJson | string): string {
    if (this.#encoding === 'latin1' && beyondLatin1.test(text)) {
      const where = typeof s === 'string' ? undefined : elementBeyond(s);
      throw new EdiJsonError(
        `${typeof s === 'string' ? s : `segment ${position} (${s.tag})${where ? `, element ${where}` : ''}`} holds a character the interchange's character set lacks (${this.#standard === 'x12' ? 'X12 is written as single bytes' : 'use UNOW or UNOY for UTF-8'})`,
        { segment: position, ...(typeof s === 'string' ? {} : { tag: s.tag, element: where }) },
      );
    }
    return text;
  }
}

function elementBeyond(s: SegmentJson): number | undefined {
  const i = s.elements.findIndex((e) => beyondLatin1.test(JSON.stringify(e).replace(/\\u[0-9a-f]{4}/g, '')));
  return i < 0 ? undefined : i + 1;
}
