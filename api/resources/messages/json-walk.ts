/**
 * A streaming walk through a JSON text, for request bodies too large to parse whole (POST
 * /messages/edi, EDI as JSON, up to 65 MiB). It checks the whole text's syntax as it comes and
 * tells a visitor what it finds: containers it walks into, and values it takes whole (cut out and
 * given to JSON.parse, which is fast). The visitor decides which containers are taken whole (a
 * segment) and which are walked into (the lists around them), so memory holds one such value and
 * one chunk whatever the text's size. A value's raw text can also be handed on as it passes (a
 * tap), for a reader of its own (the interchange's JSON form reader).
 */
import { containerEnd, stringEnd } from '../../../edi/json/json-scan.js';
import { limits } from '../../../limits/limits.js';

export type JsonPath = readonly (string | number)[];

export interface WalkVisitor {
  /** Whether the container (object or array) starting at `path` is taken whole rather than walked into. */
  whole(path: JsonPath): boolean;
  /** A value taken whole: a string, number, literal, or a container `whole` asked for. */
  value(path: JsonPath, value: unknown): void;
  /** A container walked into starts; `key` repeats an object's property seen before. */
  open?(path: JsonPath, kind: 'object' | 'array'): void;
  close?(path: JsonPath, kind: 'object' | 'array'): void;
  /** Where the raw text of the value at `path` goes as it is read, if anywhere. */
  tap?(path: JsonPath): ((text: string) => void) | undefined;
}

/** The text is not JSON; `at` is the character (from 0) where it stops being JSON. */
export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(`${message} in JSON at position ${at}`);
    this.name = 'JsonSyntaxError';
  }
}

/** A value to be taken whole is longer than `limits.jsonWholeValueMaxChars`: JSON, but not one this walk holds. */
export class JsonValueTooLong extends Error {
  constructor(readonly path: JsonPath) {
    super(`a single value is longer than ${limits.jsonWholeValueMaxChars} characters`);
    this.name = 'JsonValueTooLong';
  }
}

interface Frame {
  kind: 'object' | 'array';
  expect: 'key' | 'colon' | 'value' | 'comma';
  key: string;
  index: number;
  first: boolean;
  path: JsonPath;
}

const whiteSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

export class JsonWalker {
  #buf = '';
  #offset = 0;
  #stack: Frame[] = [];
  #done = false;
  #started = false;
  #tap: { sink: (text: string) => void; depth: number; from: number } | null = null;

  constructor(private readonly visitor: WalkVisitor) {}

  push(text: string): void {
    this.#buf += text;
    this.#scan(false);
  }

  /** Whether anything but white space came: an empty body is no JSON text at all. */
  get started(): boolean {
    return this.#started;
  }

  end(): void {
    this.#scan(true);
    if (!this.#done) throw this.#error('Unexpected end of JSON input', this.#buf.length);
  }

  #error(why: string, i: number): JsonSyntaxError {
    return new JsonSyntaxError(why, this.#offset + i);
  }

  #scan(final: boolean): void {
    const b = this.#buf;
    let i = 0;
    for (;;) {
      while (i < b.length && whiteSpace(b.charCodeAt(i))) i++;
      if (i >= b.length) break;
      if (this.#done) throw this.#error('Unexpected non-whitespace character after JSON', i);
      this.#started = true;
      const frame = this.#stack[this.#stack.length - 1];
      const c = b[i]!;
      if (frame && frame.expect === 'comma') {
        const close = frame.kind === 'object' ? '}' : ']';
        if (c === ',') {
          frame.expect = frame.kind === 'object' ? 'key' : 'value';
          i++;
        } else if (c === close) i = this.#close(b, i);
        else throw this.#error(`Unexpected token '${c}', expected ',' or '${close}'`, i);
        continue;
      }
      if (frame && frame.expect === 'key') {
        if (c === '}' && frame.first) {
          i = this.#close(b, i);
          continue;
        }
        if (c !== '"') throw this.#error(`Expected double-quoted property name`, i);
        const end = stringEnd(b, i);
        if (end < 0) {
          if (b.length - i > limits.jsonWholeValueMaxChars) throw new JsonValueTooLong(frame.path);
          break;
        }
        frame.key = this.#parse(b, i, end + 1) as string;
        frame.expect = 'colon';
        i = end + 1;
        continue;
      }
      if (frame && frame.expect === 'colon') {
        if (c !== ':') throw this.#error(`Expected ':' after property name`, i);
        frame.expect = 'value';
        i++;
        continue;
      }
      if (frame && frame.kind === 'array' && c === ']' && frame.first) {
        i = this.#close(b, i);
        continue;
      }
      // A value: walked into, or taken whole.
      const path: JsonPath = frame ? [...frame.path, frame.kind === 'object' ? frame.key : frame.index] : [];
      const tap = this.#tap ? undefined : this.visitor.tap?.(path);
      if ((c === '{' || c === '[') && !this.visitor.whole(path)) {
        if (frame) {
          frame.first = false;
          frame.expect = 'comma';
        }
        const kind = c === '{' ? 'object' : 'array';
        this.#stack.push({
          kind,
          expect: kind === 'object' ? 'key' : 'value',
          key: '',
          index: 0,
          first: true,
          path,
        });
        if (tap) this.#tap = { sink: tap, depth: this.#stack.length, from: i };
        this.visitor.open?.(path, kind);
        i++;
        continue;
      }
      const end = valueEnd(b, i, final);
      if (end < 0) {
        if (b.length - i > limits.jsonWholeValueMaxChars) throw new JsonValueTooLong(path);
        break;
      }
      if (end - i > limits.jsonWholeValueMaxChars) throw new JsonValueTooLong(path);
      const value = this.#parse(b, i, end);
      if (tap) tap(b.slice(i, end));
      if (frame) {
        frame.first = false;
        frame.expect = 'comma';
        if (frame.kind === 'array') frame.index++;
      } else this.#done = true;
      this.visitor.value(path, value);
      i = end;
    }
    if (this.#tap) {
      this.#tap.sink(b.slice(this.#tap.from, i));
      this.#tap.from = 0;
    }
    this.#offset += i;
    this.#buf = b.slice(i);
  }

  /** Closes the container whose closing bracket is at `i`; answers the index after it. */
  #close(b: string, i: number): number {
    const frame = this.#stack.pop()!;
    if (this.#tap && this.#tap.depth === this.#stack.length + 1) {
      this.#tap.sink(b.slice(this.#tap.from, i + 1));
      this.#tap = null;
    }
    const parent = this.#stack[this.#stack.length - 1];
    if (parent?.kind === 'array') parent.index++;
    if (!parent) this.#done = true;
    this.visitor.close?.(frame.path, frame.kind);
    return i + 1;
  }

  #parse(b: string, from: number, to: number): unknown {
    try {
      return JSON.parse(b.slice(from, to));
    } catch (error) {
      // The decoder's own words, placed in the whole text.
      const why = (error as Error).message
        .replace(/ in JSON at position \d+.*$/s, '')
        .replace(/, ".*" is not valid JSON$/s, '');
      throw this.#error(why, from);
    }
  }
}

/** Index just after the value starting at `i`, or -1 when the text may not hold all of it yet. */
function valueEnd(b: string, i: number, final: boolean): number {
  const c = b[i];
  if (c === '"') {
    const end = stringEnd(b, i);
    return end < 0 ? -1 : end + 1;
  }
  if (c === '{' || c === '[') return containerEnd(b, i, final ? b.length : -1);
  let j = i;
  while (j < b.length && !/[\s,}\]:{["]/.test(b[j]!)) j++;
  if (j === i) return i + 1;
  return j === b.length && !final ? -1 : j;
}
