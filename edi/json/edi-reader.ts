/**
 * Reads EDI bytes into events (events.ts) as they stream in: it keeps only the segment not
 * ended yet, so memory is bounded by the longest segment whatever the interchange's size. It
 * checks the envelope's shape (every segment inside its set, sets inside groups, headers and
 * trailers paired) and refuses what it cannot write back the same, naming the segment.
 */
import { StringDecoder } from 'node:string_decoder';
import { edifactDelimiters, isaLength, x12Delimiters } from '../syntax.js';
import { checkTag, readSegment } from './elements.js';
import { edifactEncoding, edifactSyntaxVersion } from './encoding.js';
import type { EdiEvent, EventSink, TextEncoding } from './events.js';
import { EdiJsonError, type DelimitersJson, type EdiJsonStandard } from './form.js';
import { PlainSegmentEvent, type PlainSegmentType } from './plain-segment.js';
import { tagCode } from './tag-code.js';

/** Longest segment accepted: no standard segment comes near it, so more is not EDI. */
export const maxSegmentChars = 64 * 1024;
/** Most read before the interchange must have started. */
const maxLeadingChars = 4096;
/** No bytes: text not read as Latin-1, or none. */
const noBytes = Buffer.alloc(0);

/** Before the interchange: white space and a byte order mark (as UTF-8, or its three bytes read as Latin-1). */
const leadingForm = /^(?:\uFEFF|\u00EF\u00BB\u00BF|\s)*/;

const isLineBreak = (c: number) => c === 0x0d || c === 0x0a;
/**
 * White space between segments: line breaks, and the spaces or tabs some writers put before them
 * (pyx12's examples end each segment with `~ ` and a line feed). No tag starts with one, so it is
 * skipped as the routing reader (../segments.ts) skips it.
 */
const isBetween = (c: number) => c === 0x20 || c === 0x09 || c === 0x0b || c === 0x0c || isLineBreak(c);

/**
 * The line break the form keeps (`line_break`: "", "\n", "\r\n") of what followed a terminator:
 * spaces and tabs are not kept, so such an interchange is written back without them.
 */
function lineBreakOf(between: string): string {
  for (let i = 0; i < between.length; i++)
    if (!isLineBreak(between.charCodeAt(i))) return between.replace(/[^\r\n]/g, '');
  return between;
}

export class EdiReader {
  #bytes: Buffer[] = [];
  #decoder: StringDecoder | null = null;
  #encoding: TextEncoding = 'latin1';
  #text = '';
  /** Latin-1 only: `#text`'s bytes (PlainSegmentEvent's `latin1`). */
  #textBytes: Buffer = noBytes;
  #standard: EdiJsonStandard | null = null;
  #d: DelimitersJson | null = null;
  #started = false;
  #startEvent: Extract<EdiEvent, { type: 'start' }> | null = null;
  #position = 0;
  #lineBreak: string | null = null;
  #shape: Shape | null = null;
  #done = false;

  /** Reads a chunk of bytes, handing `sink` the events it completes. */
  push(chunk: Buffer, sink: EventSink): void {
    if (!this.#decoder) {
      this.#bytes.push(chunk);
      const head = Buffer.concat(this.#bytes);
      if (!this.#recognise(head.toString('latin1'), false)) return;
      this.#bytes = [];
      this.#take(this.#decoder!.write(head), head, false);
    } else this.#take(this.#decoder.write(chunk), chunk, false);
    this.#handOn(sink);
  }

  /** Reads what is left, handing `sink` its events; throws when the interchange is not complete. */
  end(sink: EventSink): void {
    if (!this.#decoder) {
      const head = Buffer.concat(this.#bytes);
      this.#recognise(head.toString('latin1'), true);
      this.#take(this.#decoder!.write(head) + this.#decoder!.end(), head, true);
    } else this.#take(this.#decoder.end(), noBytes, true);
    this.#handOn(sink);
  }

  /**
   * The events of a push, handed on when it is read: the reader's loop over a slice and then
   * the sink's over its events was faster than the two taking turns segment by segment (plain
   * EDI → JSON at 50 MiB took a fifth longer so). One list, emptied and filled again.
   */
  #events: EdiEvent[] = [];

  #handOn(sink: EventSink): void {
    const events = this.#events;
    for (let k = 0; k < events.length; k++) sink.event(events[k]!);
    events.length = 0;
  }

  /** Finds the standard, delimiters and encoding once the head holds enough; false when it needs more. */
  #recognise(head: string, complete: boolean): boolean {
    const leading = leadingForm.exec(head)![0];
    const start = head.slice(leading.length);
    if (start.length < 3) {
      if (!complete && head.length < maxLeadingChars) return false;
      throw notEdi(start);
    }
    if (start.startsWith('ISA')) {
      if (start.length < isaLength + 2 && !complete) return false;
      const d = x12Delimiters(start);
      if (typeof d === 'string') throw new EdiJsonError(d, { segment: 1, tag: 'ISA' });
      this.#standard = 'x12';
      this.#d = d;
      this.#encoding = 'latin1';
    } else if (start.startsWith('UNA') || start.startsWith('UNB')) {
      // The UNB's syntax identifier says the encoding and, without a UNA, the repetition separator.
      if (!complete && !/UNB.{7}/s.test(start) && head.length < maxLeadingChars) return false;
      const d = { ...edifactDelimiters(start) };
      if (!start.startsWith('UNA')) d.repetition = edifactSyntaxVersion(start) >= 4 ? '*' : '';
      else if (start.length < 9) throw new EdiJsonError('the UNA is cut short', { segment: 1, tag: 'UNA' });
      this.#standard = 'edifact';
      this.#d = d;
      this.#encoding = edifactEncoding(start);
    } else throw notEdi(start);
    this.#decoder = new StringDecoder(this.#encoding === 'utf-8' ? 'utf8' : 'latin1');
    return true;
  }

  /** Reads `decoded`, the text of `bytes`, after what was left of the last push. */
  #take(decoded: string, bytes: Buffer, complete: boolean): void {
    if (this.#encoding === 'utf-8' && decoded.includes('\uFFFD'))
      throw new EdiJsonError(
        `the interchange's syntax identifier says UTF-8, but segment ${this.#position + 1} or the one after holds bytes that are not UTF-8`,
      );
    // One flat string, as the JSON reader's (json-reader.ts), for the loops over its characters.
    let text = [this.#text, decoded].join('');
    // Latin-1: the same characters as bytes, copied into a new Buffer each push, so that what
    // is kept (the rest, a segment a sink keeps) never sees its bytes overwritten, by the next
    // push or by a caller that reuses its chunk.
    let textBytes = noBytes;
    if (this.#encoding === 'latin1') {
      const rest = this.#textBytes;
      textBytes = Buffer.concat([rest, bytes], rest.length + bytes.length);
    }
    const d = this.#d!;
    let at = 0;
    if (!this.#started) {
      const leading = leadingForm.exec(text)![0];
      at = leading.length;
      let una: string | null = null;
      if (this.#standard === 'edifact' && text.startsWith('UNA', at)) {
        una = text.slice(at, at + 9);
        at += 9;
        const after = this.#suffix(text, at, complete);
        if (after === null) return this.#keep(text, textBytes, 0);
        at += after.length;
        this.#lineBreak = lineBreakOf(after);
      }
      this.#started = true;
      this.#startEvent = {
        type: 'start',
        standard: this.#standard!,
        delimiters: {
          segment: d.segment,
          element: d.element,
          component: d.component,
          repetition: d.repetition,
          release: d.release,
        },
        una,
        leading,
        line_break: this.#lineBreak ?? '',
      };
      text = text.slice(at);
      if (textBytes.length > 0) textBytes = textBytes.subarray(at);
      at = 0;
    }
    // Found again in this text (#isPlain).
    this.#componentAt = this.#repetitionAt = this.#releaseAt = -1;
    // After the trailer only white space may follow, whatever characters it is made of.
    while (!this.#done) {
      const end = this.#terminatorAt(text, at);
      if (end < 0) break;
      const suffix = this.#suffix(text, end + 1, complete);
      if (suffix === null) break;
      this.#segment(text, textBytes, at, end, suffix);
      at = end + 1 + suffix.length;
    }
    this.#keep(text, textBytes, at, complete);
  }

  #keep(text: string, textBytes: Buffer, at: number, complete = false): void {
    const rest = text.slice(at);
    if (complete) {
      if (rest.trim() !== '') {
        if (this.#done) throw this.#afterEnd();
        throw new EdiJsonError(
          `segment ${this.#position + 1} has no terminator ${JSON.stringify(this.#d!.segment)}: ${JSON.stringify(rest.slice(0, 40))}`,
          { segment: this.#position + 1 },
        );
      }
      if (!this.#done) throw this.#shapeOf().missingTrailer();
      this.#endEvent!.trailing += rest;
      this.#events.push(this.#endEvent!);
      return;
    }
    if (this.#done && rest.trim() !== '') throw this.#afterEnd();
    if (rest.length > maxSegmentChars)
      throw new EdiJsonError(`segment ${this.#position + 1} is longer than ${maxSegmentChars} characters`, {
        segment: this.#position + 1,
      });
    this.#text = rest;
    this.#textBytes = textBytes.subarray(at);
  }

  #endEvent: Extract<EdiEvent, { type: 'end' }> | null = null;

  #afterEnd(): EdiJsonError {
    return new EdiJsonError(
      `text follows the interchange trailer at segment ${this.#position} (a second interchange?); pier translates one interchange per document`,
      { segment: this.#position + 1 },
    );
  }

  /** Index of the next terminator from `from` that no release character escapes, or -1. */
  #terminatorAt(text: string, from: number): number {
    const { segment, release } = this.#d!;
    for (let i = text.indexOf(segment, from); i !== -1; i = text.indexOf(segment, i + 1)) {
      if (release === '') return i;
      let releases = 0;
      for (let j = i - 1; j >= from && text[j] === release; j--) releases++;
      if (releases % 2 === 0) return i;
    }
    return -1;
  }

  /** The white space after a terminator, or null when the text may not yet hold all of it. */
  #suffix(text: string, from: number, complete: boolean): string | null {
    const terminator = this.#d!.segment.charCodeAt(0);
    let i = from;
    for (let c = text.charCodeAt(i); i < text.length && isBetween(c) && c !== terminator;)
      c = text.charCodeAt(++i);
    if (i === text.length && !complete) return null;
    // Most segments are followed by the same line break, or none: no new string for those.
    if (i === from) return '';
    const lineBreak = this.#lineBreak;
    if (lineBreak !== null && i - from === lineBreak.length && text.startsWith(lineBreak, from))
      return lineBreak;
    return text.slice(from, i);
  }

  /** The segment `text.slice(at, end)`, followed by `suffix`; `bytes`, Latin-1 only, are `text`'s. */
  #segment(text: string, bytes: Buffer, at: number, end: number, suffix: string): void {
    this.#position += 1;
    const position = this.#position;
    if (this.#done) throw this.#afterEnd();
    if (end === at) throw new EdiJsonError(`segment ${position} is empty`, { segment: position });
    const d = this.#d!;
    const flat = this.#standard === 'x12' && position === 1;
    // Whether it is plain, and its tag, found with no string sliced: the slice, three searches
    // of it and a fourth for the tag were a tenth of EDI → JSON.
    const plain = !flat && this.#isPlain(text, at, end);
    const tag = plain ? this.#tagAt(text, at, end, position) : '';
    const segment = plain ? null : readSegment(text.slice(at, end), d, position, flat);
    // Line breaks are kept once, as the interchange's; others are written like the first (docs/edi-json.md).
    this.#lineBreak ??= lineBreakOf(suffix);
    if (this.#startEvent) {
      this.#startEvent.line_break = this.#lineBreak;
      this.#events.push(this.#startEvent);
      this.#startEvent = null;
    }
    const type = this.#shapeOf().next(segment?.tag ?? tag, position);
    if (type === 'end') {
      this.#done = true;
      // Sent at the end, when all that follows the trailer is known.
      this.#endEvent = {
        type,
        segment: segment ?? plainSegment('segment', tag, text, noBytes, at, end, d.element).segment,
        trailing: suffix,
      };
      return;
    }
    // A plain envelope segment (ST, SE…) is handed on as text too: split into an array and
    // written from it, it was about a sixth of EDI → JSON's profile.
    this.#events.push(segment ? { type, segment } : plainSegment(type, tag, text, bytes, at, end, d.element));
  }

  /** Tags read, by their number (tag-code.ts): one string per tag, not one per segment. */
  #tags = new Map<number, string>();

  /**
   * Where the component separator, the repetition separator and the release character are next
   * in the text being read, from the last segment on (the text's length when nowhere, -1 when not
   * searched yet): a segment is plain when none is before its end. Each is searched for again
   * only once a segment is past it, so a push of segments none of which holds one costs three
   * searches, not three a segment.
   */
  #componentAt = -1;
  #repetitionAt = -1;
  #releaseAt = -1;

  /**
   * Whether the segment `text.slice(at, end)`'s elements are all simple, with no release
   * character (see plain-segment.ts).
   */
  #isPlain(text: string, at: number, end: number): boolean {
    const d = this.#d!;
    // `includes` finds an empty separator in any text: none is plain then.
    if (d.component === '') return false;
    if (this.#componentAt < at) this.#componentAt = nextAt(text, d.component, at);
    if (this.#componentAt < end) return false;
    if (this.#repetitionAt < at) this.#repetitionAt = nextAt(text, d.repetition, at);
    if (this.#repetitionAt < end) return false;
    if (this.#releaseAt < at) this.#releaseAt = nextAt(text, d.release, at);
    return this.#releaseAt >= end;
  }

  /** #tagOf for the plain segment `text.slice(at, end)`, without slicing it. */
  #tagAt(text: string, at: number, end: number, position: number): string {
    // A tag is two or three characters: the separator after it is among the first four.
    const element = this.#d!.element.charCodeAt(0);
    let separator = end;
    for (let i = at; i < end && i < at + 4; i++)
      if (text.charCodeAt(i) === element) {
        separator = i;
        break;
      }
    const code = tagCode(text, at, separator);
    if (code < 0) return this.#tagOf(text.slice(at, end), position);
    let tag = this.#tags.get(code);
    if (tag === undefined) {
      tag = text.slice(at, separator);
      this.#tags.set(code, tag);
    }
    return tag;
  }

  /** The tag of a plain segment; refused as checkTag refuses it. */
  #tagOf(raw: string, position: number): string {
    const separator = raw.indexOf(this.#d!.element);
    const code = tagCode(raw, 0, separator < 0 ? raw.length : separator);
    if (code < 0) {
      const tag = tagOf(raw, this.#d!.element);
      checkTag(tag, position);
      return tag;
    }
    let tag = this.#tags.get(code);
    if (tag === undefined) {
      tag = raw.slice(0, separator < 0 ? raw.length : separator);
      this.#tags.set(code, tag);
    }
    return tag;
  }

  #shapeOf(): Shape {
    this.#shape ??= new Shape(this.#standard!);
    return this.#shape;
  }
}

/** The plain segment `text.slice(at, end)`, tagged `tag`. */
function plainSegment(
  type: PlainSegmentType,
  tag: string,
  text: string,
  bytes: Buffer,
  at: number,
  end: number,
  separator: string,
): PlainSegmentEvent {
  const values = end - at === tag.length ? -1 : at + tag.length + 1;
  const latin1 = bytes.length > 0 ? bytes : null;
  return new PlainSegmentEvent(type, tag, text, values, end, separator, separator, latin1);
}

/** Index of `delimiter` in `text` from `from`; the text's length when it is not there or empty. */
function nextAt(text: string, delimiter: string, from: number): number {
  if (delimiter === '') return text.length;
  const i = text.indexOf(delimiter, from);
  return i < 0 ? text.length : i;
}

function tagOf(raw: string, element: string): string {
  const end = raw.indexOf(element);
  return end < 0 ? raw : raw.slice(0, end);
}

const notEdi = (start: string) =>
  new EdiJsonError(
    `the document is not an X12 or EDIFACT interchange: it starts with ${JSON.stringify(start.slice(0, 20))}, not ISA, UNA or UNB`,
  );

/** The envelope's shape: which segment may come where. */
class Shape {
  #level: 'none' | 'interchange' | 'group' | 'set' = 'none';
  /** EDIFACT: whether messages are grouped (UNG), decided by the first. */
  #grouped: boolean | null = null;
  readonly #tags;

  constructor(readonly standard: EdiJsonStandard) {
    this.#tags =
      standard === 'x12'
        ? { ih: 'ISA', it: 'IEA', gh: 'GS', gt: 'GE', sh: 'ST', st: 'SE' }
        : { ih: 'UNB', it: 'UNZ', gh: 'UNG', gt: 'UNE', sh: 'UNH', st: 'UNT' };
  }

  next(tag: string, position: number): Exclude<EdiEvent['type'], 'start'> {
    const t = this.#tags;
    const level = this.#level;
    switch (tag) {
      case t.ih:
        if (level !== 'none')
          throw this.#refuse(tag, position, 'opens an interchange inside the interchange');
        this.#level = 'interchange';
        return 'interchange';
      case t.gh:
        if (level !== 'interchange')
          throw this.#refuse(
            tag,
            position,
            level === 'none' ? 'comes before the interchange header' : `opens a group inside a ${level}`,
          );
        if (this.#grouped === false)
          throw this.#refuse(tag, position, 'opens a group after messages outside groups');
        this.#grouped = true;
        this.#level = 'group';
        return 'group';
      case t.sh:
        if (this.standard === 'x12' || this.#grouped === true) {
          if (level !== 'group')
            throw this.#refuse(
              tag,
              position,
              level === 'set' ? 'opens a set inside a set' : 'is outside a group',
            );
        } else {
          if (level !== 'interchange')
            throw this.#refuse(
              tag,
              position,
              level === 'set' ? 'opens a message inside a message' : 'comes before the interchange header',
            );
          this.#grouped = false;
        }
        this.#level = 'set';
        return 'set';
      case t.st:
        if (level !== 'set') throw this.#refuse(tag, position, 'closes no set');
        this.#level = this.#grouped === false ? 'interchange' : 'group';
        return 'set-end';
      case t.gt:
        if (level !== 'group')
          throw this.#refuse(
            tag,
            position,
            level === 'set' ? 'closes a group whose last set has no trailer' : 'closes no group',
          );
        this.#level = 'interchange';
        return 'group-end';
      case t.it:
        if (level !== 'interchange')
          throw this.#refuse(
            tag,
            position,
            level === 'none'
              ? 'comes before the interchange header'
              : `closes the interchange while a ${level} is open`,
          );
        this.#level = 'none';
        return 'end';
      default:
        if (level !== 'set')
          throw this.#refuse(
            tag,
            position,
            this.standard === 'x12' ? 'is outside a transaction set' : 'is outside a message',
          );
        return 'segment';
    }
  }

  #refuse(tag: string, position: number, why: string): EdiJsonError {
    return new EdiJsonError(`segment ${position} (${tag}) ${why}`, { segment: position, tag });
  }

  missingTrailer(): EdiJsonError {
    const t = this.#tags;
    const missing = this.#level === 'set' ? t.st : this.#level === 'group' ? t.gt : t.it;
    return new EdiJsonError(`the interchange ends without its ${missing} trailer`, { tag: missing });
  }
}
