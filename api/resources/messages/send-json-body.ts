/**
 * The two passes over a spooled EDI-as-JSON body (json-spool.ts), each streaming, so memory
 * stays flat in the body's size:
 *
 * 1. `readSend` checks the text is JSON and gives the body without its large parts (an
 *    `interchange` becomes `{}`, each set's `segments` an empty list with its count kept), for
 *    the schema to judge, wherever the small properties (`from`, `to`, overrides) appear. Each
 *    segment of `documents` is checked against the segment schema as it passes, and an
 *    `interchange` is read by the JSON form's reader as it passes, so a wrong shape is refused
 *    before anything is stored.
 * 2. `interchangeEdi` and `documentsEdi` write the EDI from the spool: the interchange's text goes
 *    through jsonToEdi; documents are put between envelope segments built beforehand (their
 *    counts known from pass 1), one pass per X12 functional group.
 */
import { z } from 'zod';
import { EdiWriter } from '../../../edi/json/edi-writer.js';
import type { EventSink } from '../../../edi/json/events.js';
import { EdiJsonError, type EdiJson, type SegmentJson, type SetJson } from '../../../edi/json/form.js';
import { JsonFormReader } from '../../../edi/json/json-reader.js';
import { jsonToEdi } from '../../../edi/json/translate.js';
import { ApiError, validationError } from '../../errors.js';
import { EdiJsonDocument, EdiJsonParts, EdiJsonSend } from '../../schemas/edi-json.js';
import { detailsFromZod, putDetail } from '../../validation.js';
import type { BodySpool } from './json-spool.js';
import {
  JsonSyntaxError,
  JsonValueTooLong,
  JsonWalker,
  type JsonPath,
  type WalkVisitor,
} from './json-walk.js';
import { limits } from '../../../limits/limits.js';

/** The body's schema with the interchange's content judged by the form's reader instead (pass 1). */
export const SendSkeleton = EdiJsonSend.extend({ interchange: z.looseObject({}).optional() });

/** The most sets the schema takes, plus one so that it can say there are too many. */
const keptSets = 10_001;

export interface ReadSend {
  /** The body without its large parts; undefined for an empty body. */
  body: unknown;
  /** Segments of each set of `documents`, by the set's index. */
  segments: number[];
  /** What the passing segments and interchange got wrong, by property. */
  problems: Record<string, string>;
}

const isSet = (p: JsonPath) =>
  p.length === 3 && p[0] === 'documents' && p[1] === 'sets' && typeof p[2] === 'number';
const isSetSegments = (p: JsonPath) => p.length === 4 && isSet(p.slice(0, 3)) && p[3] === 'segments';
const isSetSegment = (p: JsonPath) =>
  p.length === 5 && isSetSegments(p.slice(0, 4)) && typeof p[4] === 'number';

/** Which containers are taken whole: segments and the small values around them; lists are walked. */
function whole(p: JsonPath): boolean {
  if (p.length === 0) return false;
  if (p[0] === 'interchange') {
    const last = p[p.length - 1];
    return last === 'header' || last === 'trailer' || last === 'delimiters' || p[p.length - 2] === 'segments';
  }
  if (p[0] !== 'documents') return true;
  if (p.length === 1) return false;
  if (p.length === 2) return p[1] !== 'sets';
  if (p.length === 3) return !isSet(p);
  if (p.length === 4) return !isSetSegments(p);
  return true;
}

/** Feeds a spool's text to a walker, pausing after each chunk. */
async function* walk(spool: BodySpool, walker: JsonWalker): AsyncGenerator<void> {
  for await (const text of spool.text()) {
    walker.push(text);
    yield;
  }
  walker.end();
  yield;
}

async function syntaxRefusal(spool: BodySpool, error: JsonSyntaxError): Promise<ApiError> {
  let text = error.message;
  if (spool.size <= limits.jsonReparsedMaxBytes) {
    const { readFile } = await import('node:fs/promises');
    try {
      JSON.parse(await readFile(spool.file, 'utf8'));
    } catch (decoder) {
      text = (decoder as Error).message;
    }
  }
  return new ApiError('INVALID_INPUT', 'Invalid request body', { body: text });
}

interface Entry {
  /** The container being rebuilt; null where its content is left out. */
  node: Record<string | number, unknown> | null;
  /** A part checked alone when it closes (the interchange, a group, a set), and under which property. */
  check?: z.ZodType;
  field?: 'interchange' | 'documents';
  /** Lists whose items are checked alone as they pass, by key (an object) or for each item (a list). */
  lists?: Record<string, z.ZodType>;
  items?: z.ZodType;
  /** The set of `documents` whose segments this list holds. */
  set?: number;
}

const listsOf = (schema: z.ZodType): Record<string, z.ZodType> | undefined =>
  schema === EdiJsonDocument
    ? { groups: EdiJsonParts.group, messages: EdiJsonParts.set }
    : schema === EdiJsonParts.group
      ? { transactions: EdiJsonParts.set, messages: EdiJsonParts.set }
      : schema === EdiJsonParts.set
        ? { segments: EdiJsonParts.segment }
        : undefined;

/** The first thing a schema finds wrong with a part, in the words it uses for the whole body. */
function firstProblem(schema: z.ZodType, value: unknown): string | undefined {
  const parsed = schema.safeParse(value);
  return parsed.success ? undefined : Object.values(detailsFromZod(parsed.error))[0];
}

/**
 * Pass 1: the body's small properties and what its large parts get wrong. An interchange is
 * checked part by part with the parts of its schema (the same words as a check of the whole),
 * and read by the JSON form's reader for what the schema does not say (order, envelope tags).
 */
export async function readSend(spool: BodySpool): Promise<ReadSend> {
  const segments: number[] = [];
  const problems: Record<string, string> = {};
  const readerProblems: Record<string, string> = {};
  const seen = new Set<string>();
  let body: unknown;
  const stack: Entry[] = [];
  let form: JsonFormReader | null = null;
  const formSays = (run: () => unknown) => {
    if (!form) return;
    try {
      run();
    } catch (error) {
      form = null;
      if (!(error instanceof EdiJsonError)) throw error;
      putDetail(readerProblems, 'interchange', error.message);
    }
  };
  const problem = (field: string | undefined, text: string | undefined) => {
    if (field && text !== undefined) putDetail(problems, field, text);
  };
  /** Puts a value or container into its parent, or checks it alone; answers the entry of a container. */
  const place = (p: JsonPath, value: unknown, opened: boolean): Entry => {
    const key = p[p.length - 1];
    const parent = stack[stack.length - 1];
    const container = typeof value === 'object' && value !== null ? (value as Entry['node']) : null;
    if (!parent) {
      body = value;
      return { node: container };
    }
    if (parent.items) {
      if (parent.set !== undefined) segments[parent.set] = (segments[parent.set] ?? 0) + 1;
      // A part checked alone: a container walked into when it closes, a value taken whole now.
      if (container && opened)
        return { node: container, check: parent.items, field: parent.field!, lists: listsOf(parent.items) };
      problem(parent.field, firstProblem(parent.items, value));
      return { node: null };
    }
    if (!parent.node) return { node: null };
    if (p.length === 1 && (key === 'interchange' || key === 'documents')) {
      if (seen.has(key)) problem(key, 'Given more than once');
      seen.add(key);
    }
    const list = parent.lists?.[key!];
    if (list && Array.isArray(value)) {
      parent.node[key!] = [];
      return { node: null, items: list, field: parent.field! };
    }
    if (isSet(p) && (key as number) >= keptSets) return { node: null };
    if (isSetSegments(p) && Array.isArray(value)) {
      parent.node[key!] = [];
      segments[p[2] as number] ??= 0;
      return { node: null, items: EdiJsonParts.segment, field: 'documents', set: p[2] as number };
    }
    if (p.length === 1 && key === 'interchange' && container && !Array.isArray(container)) {
      // Stands in for the interchange in the body's schema; the interchange is checked alone.
      parent.node[key] = {};
      form = new JsonFormReader();
      return {
        node: container,
        check: EdiJsonDocument,
        field: 'interchange',
        lists: listsOf(EdiJsonDocument),
      };
    }
    // Inside an interchange, only what its schema knows is kept: the rest could be any size.
    if (parent.check && parent.lists && typeof key === 'string' && !(key in shapeOf(parent.check)))
      return { node: null };
    parent.node[key!] = value;
    return { node: container };
  };
  const visitor: WalkVisitor = {
    whole,
    value(p, value) {
      place(p, value, false);
    },
    open(p, kind) {
      stack.push(place(p, kind === 'object' ? {} : [], true));
    },
    close(p) {
      const entry = stack.pop()!;
      if (entry.check && entry.node) problem(entry.field, firstProblem(entry.check, entry.node));
      if (p.length === 1 && p[0] === 'interchange') formSays(() => form!.end(unwritten));
    },
    tap: (p) =>
      p.length === 1 && p[0] === 'interchange'
        ? (text) => formSays(() => form!.push(Buffer.from(text, 'utf8'), unwritten))
        : undefined,
  };
  const walker = new JsonWalker(visitor);
  try {
    for await (const _ of walk(spool, walker));
  } catch (error) {
    if (error instanceof JsonSyntaxError) {
      if (!walker.started) return { body: undefined, segments, problems };
      throw await syntaxRefusal(spool, error);
    }
    if (error instanceof JsonValueTooLong)
      throw validationError({ [String(error.path[0] ?? '_form')]: error.message });
    throw error;
  }
  for (const [key, text] of Object.entries(readerProblems)) putDetail(problems, key, text);
  return { body, segments, problems };
}

/** Pass 1 reads the interchange for its refusals only: its events are not written. */
const unwritten: EventSink = { event() {} };

const shapeOf = (schema: z.ZodType): Record<string, unknown> =>
  (schema as unknown as { shape?: Record<string, unknown> }).shape ?? {};

/** Pass 2 of a whole interchange: its JSON form's text, as it passes, to EDI bytes. */
export function interchangeEdi(spool: BodySpool): AsyncGenerator<Buffer> {
  return jsonToEdi(
    (async function* () {
      const out: string[] = [];
      const walker = new JsonWalker({
        whole,
        value() {},
        tap: (p) => (p.length === 1 && p[0] === 'interchange' ? (text) => out.push(text) : undefined),
      });
      for await (const _ of walk(spool, walker)) {
        if (out.length === 0) continue;
        yield out.join('');
        out.length = 0;
      }
    })(),
  );
}

/**
 * Pass 2 of documents: `envelope` is the interchange built around them (buildInterchange with
 * each set's segments counted, not held) and `order` the body's index of each of its sets; the
 * sets' segments come from the spool, one pass per group, in the order the envelope puts the sets.
 */
export async function* documentsEdi(
  spool: BodySpool,
  envelope: EdiJson,
  order: number[],
): AsyncGenerator<Buffer> {
  const writer = new EdiWriter();
  writer.event({
    type: 'start',
    standard: envelope.standard,
    delimiters: envelope.delimiters,
    una: envelope.una,
    leading: envelope.leading,
    line_break: envelope.line_break,
  });
  writer.event({ type: 'interchange', segment: envelope.header });
  // Which sets of the body each group holds, in the body's order (build.ts groups them so).
  const groups = envelope.groups ?? [null];
  let first = 0;
  for (const group of groups) {
    const sets: SetJson[] = group ? (group.transactions ?? group.messages ?? []) : (envelope.messages ?? []);
    if (group) writer.event({ type: 'group', segment: group.header });
    yield* setsFromSpool(spool, writer, new Map(sets.map((s, k) => [order[first + k]!, s])));
    first += sets.length;
    if (group) writer.event({ type: 'group-end', segment: group.trailer });
  }
  writer.event({ type: 'end', segment: envelope.trailer, trailing: envelope.trailing });
  yield writer.take();
}

async function* setsFromSpool(
  spool: BodySpool,
  writer: EdiWriter,
  mine: Map<number, SetJson>,
): AsyncGenerator<Buffer> {
  const walker = new JsonWalker({
    whole,
    value(p, value) {
      if (isSetSegment(p) && mine.has(p[2] as number))
        writer.event({ type: 'segment', segment: value as SegmentJson });
    },
    open(p) {
      const set = isSet(p) ? mine.get(p[2] as number) : undefined;
      if (set) writer.event({ type: 'set', segment: set.header });
    },
    close(p) {
      const set = isSet(p) ? mine.get(p[2] as number) : undefined;
      if (set) writer.event({ type: 'set-end', segment: set.trailer });
    },
  });
  for await (const _ of walk(spool, walker)) {
    const bytes = writer.take();
    if (bytes.length > 0) yield bytes;
  }
}
