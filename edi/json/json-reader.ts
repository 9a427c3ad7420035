/**
 * Reads the JSON form's UTF-8 bytes into events (events.ts) as they stream in, and hands each
 * to a sink as it is read. The containers of the form (the document, its groups, sets and
 * their lists) are followed token by token; every other value (a segment, the delimiters) is
 * cut out whole and given to JSON.parse, which is fast, unless it is a plain segment
 * (json-plain-segment.ts). So memory holds one segment, whatever the document's size. A
 * document must say its standard and delimiters before its first segment, as the form's writer
 * does; a trailer may come before or after its set's segments.
 *
 * The bytes are not decoded: only a value given to JSON.parse is, and every value ends at an
 * ASCII character, so it reads as it did in the decoded text. Refusals count characters of
 * that text, as before (utf8-input.ts).
 */
import type { EventSink } from './events.js';
import { EdiJsonError, type SegmentJson } from './form.js';
import { more, PlainSegmentReader, sameBytes } from './json-plain-segment.js';
import { PlainSegmentEvent } from './plain-segment.js';
import { SinkRelay } from './sink-relay.js';
import { checkStart, checkTrailing } from './start.js';
import { containerEnd, stringEnd } from './json-scan.js';
import { charactersIn, heldBack } from './utf8-input.js';

/** The largest single value taken (a segment with its annotations). */
const maxValueChars = 1024 * 1024;

type Role = 'root' | 'groups' | 'group' | 'sets' | 'set' | 'segments';

interface Frame {
  role: Role;
  kind: 'object' | 'array';
  /** object: key, colon, value, comma; array: value, comma */
  expect: 'key' | 'colon' | 'value' | 'comma';
  key: string;
  first: boolean;
  header: boolean;
  trailer: SegmentJson | null;
  children: boolean;
  index: number;
}

/** What a key of a container holds: another container, or a value taken whole. */
function childRole(frame: Frame): Role | null {
  if (frame.kind === 'array') return frame.role === 'groups' ? 'group' : frame.role === 'sets' ? 'set' : null;
  const k = frame.key;
  if (frame.role === 'root') return k === 'groups' ? 'groups' : k === 'messages' ? 'sets' : null;
  if (frame.role === 'group') return k === 'transactions' || k === 'messages' ? 'sets' : null;
  if (frame.role === 'set') return k === 'segments' ? 'segments' : null;
  return null;
}

const whiteSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

const nothing = Buffer.alloc(0);

/** The work buffer's first size: a slice of jsonToEdi's and the rest of the one before. */
const workBytes = 80 * 1024;

export class JsonFormReader {
  /**
   * The rest of the last push and the new bytes, copied together: one Buffer, used again and
   * again, as a new one per push was a tenth of the time in allocation and collection. So the
   * events handed on point into it and hold only while the sink takes them; a trailer, kept
   * until its set closes, is copied.
   */
  #work = Buffer.allocUnsafe(workBytes);
  /** Where in #work the bytes read and not scanned yet (the end of the last push) lie. */
  #restStart = 0;
  #restEnd = 0;
  /** The bytes being scanned, without what a decoder would hold back (#scan). */
  #buf: Buffer = nothing;
  #stack: Frame[] = [];
  #meta: Record<string, unknown> = {};
  #started = false;
  #ended = false;
  #out = new SinkRelay();
  /** Characters before #buf, for the messages. */
  #offset = 0;
  /** Where the scan is in #buf, for the messages. */
  #cursor = 0;
  /** The fast path for plain segments, once the delimiters are known. */
  #plain: PlainSegmentReader | null = null;

  /** Reads `bytes`, handing `sink` the events they complete. */
  push(bytes: Uint8Array, sink: EventSink): void {
    const kept = this.#restEnd - this.#restStart;
    if (kept + bytes.length > this.#work.length) {
      const bigger = Buffer.allocUnsafe(Math.max(kept + bytes.length, 2 * this.#work.length));
      this.#work.copy(bigger, 0, this.#restStart, this.#restEnd);
      this.#work = bigger;
    } else this.#work.copyWithin(0, this.#restStart, this.#restEnd);
    this.#work.set(bytes, kept);
    const all = this.#work.subarray(0, kept + bytes.length);
    this.#out.to(sink);
    const stop = this.#scan(all.subarray(0, all.length - heldBack(all)));
    this.#offset += charactersIn(all, 0, stop);
    this.#restStart = stop;
    this.#restEnd = all.length;
    this.#out.settle();
  }

  /** Reads what is left, handing `sink` its events; throws when the document is not complete. */
  end(sink: EventSink): void {
    const all = this.#work.subarray(this.#restStart, this.#restEnd);
    this.#out.to(sink);
    const stop = this.#scan(all);
    this.#offset += charactersIn(all, 0, stop);
    this.#out.settle();
    this.#buf = nothing;
    this.#cursor = 0;
    if (!this.#ended || all.toString('utf8', stop).trim() !== '')
      throw this.#fail(this.#ended ? 'text follows the document' : 'the document ends before it is complete');
  }

  #fail(why: string): EdiJsonError {
    const at = this.#offset + charactersIn(this.#buf, 0, this.#cursor);
    return new EdiJsonError(`the JSON document is not the EDI JSON form: ${why} (at character ${at + 1})`);
  }

  /** Scans `b` as far as it holds whole values; answers where it stopped. */
  #scan(b: Buffer): number {
    this.#buf = b;
    let i = 0;
    for (;;) {
      while (i < b.length && whiteSpace(b[i]!)) i++;
      if (i >= b.length) break;
      this.#cursor = i;
      const frame = this.#stack[this.#stack.length - 1];
      const c = b[i]!;
      if (this.#ended) break;
      if (!frame) {
        if (c !== 0x7b) throw this.#fail('the document must be a JSON object');
        this.#stack.push(this.#frame('root', 'object'));
        i++;
        continue;
      }
      if (frame.expect === 'comma') {
        const close = frame.kind === 'object' ? '}' : ']';
        if (c === 0x2c) {
          frame.expect = frame.kind === 'object' ? 'key' : 'value';
          i++;
        } else if (c === close.charCodeAt(0)) {
          i++;
          this.#close();
        } else throw this.#fail(`expected , or ${close}`);
        continue;
      }
      if (frame.expect === 'key') {
        if (c === 0x7d && frame.first) {
          i++;
          this.#close();
          continue;
        }
        if (c !== 0x22) throw this.#fail('expected a property name');
        const end = stringEnd(b, i);
        if (end < 0) break;
        frame.key = plainString(b, i, end)
          ? (knownKey(b, i + 1, end) ?? b.toString('utf8', i + 1, end))
          : (this.#parse(b, i, end + 1, 'a property name is not valid JSON') as string);
        frame.expect = 'colon';
        frame.first = false;
        i = end + 1;
        continue;
      }
      if (frame.expect === 'colon') {
        if (c !== 0x3a) throw this.#fail('expected :');
        frame.expect = 'value';
        i++;
        continue;
      }
      // A value: a container of the form, the end of an empty array, or a value taken whole.
      if (frame.kind === 'array' && c === 0x5d && frame.first) {
        i++;
        this.#close();
        continue;
      }
      frame.first = false;
      const role = childRole(frame);
      if (role !== null) {
        const kind = role === 'groups' || role === 'sets' || role === 'segments' ? 'array' : 'object';
        if (c !== (kind === 'array' ? 0x5b : 0x7b))
          throw this.#fail(`${frame.key || role} must be ${kind === 'array' ? 'an array' : 'an object'}`);
        frame.expect = 'comma';
        this.#open(role, kind, frame);
        i++;
        continue;
      }
      const segment = frame.role === 'segments' || frame.key === 'header' || frame.key === 'trailer';
      if (segment && c === 0x7b && this.#plain) {
        const read = this.#plain.read(b, i);
        if (typeof read === 'object') {
          frame.expect = 'comma';
          i = this.#plain.end;
          if (frame.role !== 'segments') {
            this.#value(frame, read);
            continue;
          }
          this.#out.event(read);
          // The list's next segments while they are plain, without the scan's steps per comma and value.
          for (;;) {
            let j = i;
            while (j < b.length && whiteSpace(b[j]!)) j++;
            if (b[j] !== 0x2c) break;
            j++;
            while (j < b.length && whiteSpace(b[j]!)) j++;
            if (b[j] !== 0x7b) break;
            const next = this.#plain.read(b, j);
            if (typeof next !== 'object') break;
            this.#out.event(next);
            i = this.#plain.end;
          }
          continue;
        }
        // The fast path may wait for text the general path would not: it decides.
        if (read === more && valueEnd(b, i) < 0) {
          if (tooLong(b, i)) throw this.#fail(`a value is longer than ${maxValueChars} characters`);
          break;
        }
      }
      const end = valueEnd(b, i);
      if (end < 0) {
        if (tooLong(b, i)) throw this.#fail(`a value is longer than ${maxValueChars} characters`);
        break;
      }
      const value = this.#parse(b, i, end, 'a value is not valid JSON');
      frame.expect = 'comma';
      this.#value(frame, value);
      i = end;
    }
    return i;
  }

  #missing(frame: Frame, what: string): EdiJsonError {
    return this.#fail(`a ${frame.role === 'root' ? 'document' : frame.role} has no ${what}`);
  }

  /** The value in `b` from `from` to `to`, decoded. */
  #parse(b: Buffer, from: number, to: number, failure: string): unknown {
    try {
      return JSON.parse(b.toString('utf8', from, to));
    } catch {
      throw this.#fail(failure);
    }
  }

  #frame(role: Role, kind: 'object' | 'array'): Frame {
    return {
      role,
      kind,
      expect: kind === 'object' ? 'key' : 'value',
      key: '',
      first: true,
      header: false,
      trailer: null,
      children: false,
      index: 0,
    };
  }

  #open(role: Role, kind: 'object' | 'array', parent: Frame): void {
    if (role === 'groups' || role === 'sets') {
      this.#begin();
      if (!this.#hasHeader(parent)) throw this.#fail(`${parent.key}: the header must come before it`);
      parent.children = true;
    }
    if (role === 'segments' && !parent.header)
      throw this.#fail("segments: the set's header must come before them");
    this.#stack.push(this.#frame(role, kind));
  }

  #hasHeader(frame: Frame): boolean {
    return frame.header;
  }

  #close(): void {
    const frame = this.#stack.pop()!;
    const parent = this.#stack[this.#stack.length - 1];
    if (parent && parent.kind === 'array') parent.index++;
    switch (frame.role) {
      case 'root':
        this.#begin();
        if (!frame.header) throw this.#missing(frame, 'header');
        if (!frame.trailer) throw this.#missing(frame, 'trailer');
        this.#out.event({
          type: 'end',
          segment: frame.trailer,
          trailing: checkTrailing(this.#meta.trailing),
        });
        this.#ended = true;
        return;
      case 'group':
        if (!frame.header) throw this.#missing(frame, 'header');
        if (!frame.trailer) throw this.#missing(frame, 'trailer');
        this.#out.event({ type: 'group-end', segment: frame.trailer });
        return;
      case 'set':
        if (!frame.header) throw this.#missing(frame, 'header');
        if (!frame.trailer) throw this.#missing(frame, 'trailer');
        this.#out.event({ type: 'set-end', segment: frame.trailer });
        return;
      default:
        return;
    }
  }

  /** The start event, once: from the properties read so far. */
  #begin(): void {
    if (this.#started) return;
    this.#started = true;
    const start = checkStart(this.#meta);
    this.#plain = new PlainSegmentReader(start.delimiters);
    this.#out.event(start);
  }

  #value(frame: Frame, value: unknown): void {
    if (frame.role === 'segments') {
      this.#out.event({ type: 'segment', segment: value as SegmentJson });
      return;
    }
    if (frame.kind === 'array') return;
    const key = frame.key;
    const segment = value as SegmentJson;
    if (frame.role === 'root' && key !== 'header' && key !== 'trailer') {
      if (this.#started && ['standard', 'delimiters', 'una', 'leading', 'line_break', 'format'].includes(key))
        throw this.#fail(`${key} must come before the header`);
      this.#meta[key] = value;
      return;
    }
    if (key === 'header') {
      if (frame.header) throw this.#fail('a second header');
      if (frame.role === 'root') this.#begin();
      frame.header = true;
      const type = frame.role === 'root' ? 'interchange' : frame.role === 'group' ? 'group' : 'set';
      this.#out.event({ type, segment });
    } else if (key === 'trailer') {
      if (frame.trailer) throw this.#fail('a second trailer');
      frame.trailer = segment instanceof PlainSegmentEvent ? segment.copy() : segment;
    }
  }
}

/**
 * Whether the JSON string from the quote at `i` to the one at `end` holds no escape and no
 * control character: then it reads as its characters, and JSON.parse is not needed for it.
 */
function plainString(b: Buffer, i: number, end: number): boolean {
  for (let j = i + 1; j < end; j++) {
    const c = b[j]!;
    if (c === 0x5c || c < 0x20) return false;
  }
  return true;
}

/** The keys of the form's containers, which come again in every set: no string decoded for them. */
const containerKeys = ['header', 'trailer', 'segments', 'transactions', 'messages', 'groups'].map((key) => ({
  key,
  bytes: Buffer.from(key, 'latin1'),
}));

/** The key in `b` from `from` to `to` when it is one of containerKeys. */
function knownKey(b: Buffer, from: number, to: number): string | undefined {
  for (const { key, bytes } of containerKeys)
    if (bytes.length === to - from && sameBytes(b, from, bytes)) return key;
  return undefined;
}

/** Whether the value from `i` to the end of `b`, not complete yet, is already too long to take. */
const tooLong = (b: Buffer, i: number) =>
  b.length - i > maxValueChars && charactersIn(b, i, b.length) > maxValueChars;

/** Index just after the JSON value starting at `i`, or -1 when the text may not hold all of it. */
function valueEnd(b: Buffer, i: number): number {
  const c = b[i];
  if (c === 0x22) {
    const end = stringEnd(b, i);
    return end < 0 ? -1 : end + 1;
  }
  if (c === 0x7b || c === 0x5b) return containerEnd(b, i, -1);
  let j = i;
  while (j < b.length && !endsLiteral(b, j)) j++;
  return j === b.length ? -1 : j;
}

/**
 * Whether the character at `j` ends a literal (a number, true…): a comma, a closing bracket or
 * white space as a pattern's `\s` has it, which counts some characters beyond ASCII.
 */
function endsLiteral(b: Buffer, j: number): boolean {
  const c = b[j]!;
  if (c < 0x80) return c === 0x2c || c === 0x7d || c === 0x5d || /\s/.test(String.fromCharCode(c));
  return /^\s/.test(b.toString('utf8', j, j + 4));
}
