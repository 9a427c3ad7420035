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

export class EdiWriter implements EventSink {
  #text = '';
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

  /** The bytes written since the last call. */
  take(): Buffer {
    const out = Buffer.from(this.#text, this.#encoding === 'utf-8' ? 'utf8' : 'latin1');
    this.#text = '';
    return out;
  }

  #interchange(s: SegmentJson): void {
    const tag = envelopeTags[this.#standard].interchange[0];
    if (this.#standard === 'edifact') {
      const syntax = Array.isArray(s?.elements?.[0]) ? s.elements[0][0] : s?.elements?.[0];
      this.#encoding = syntax === 'UNOW' || syntax === 'UNOY' ? 'utf-8' : 'latin1';
    }
    this.#text += this.#check(this.#pendingStart, 0, 'the leading text');
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
    const text = writeSegment(s, this.#d!, position, this.#standard === 'x12' && position === 1);
    this.#text += this.#check(text, position, s) + (trailing ?? this.#lineBreak);
  }

  /** A plain segment's text is already as written (plain-segment.ts): only its place is checked. */
  #writePlain(e: PlainSegmentEvent): void {
    const position = ++this.#position;
    if (this.#envelope.has(e.tag))
      throw new EdiJsonError(
        `segment ${position} (${e.tag}) is an envelope segment inside a set's segments`,
        {
          segment: position,
          tag: e.tag,
        },
      );
    this.#text += e.text + this.#d!.segment + this.#lineBreak;
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
