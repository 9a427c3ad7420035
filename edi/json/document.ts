/**
 * The JSON form as a document in memory: built from events (what the tests and small payloads
 * want), and walked as events (what the EDI writer takes). The walk checks the document's shape
 * and names what is missing, so a hand-written document gets a clear answer.
 */
import type { EdiEvent, EventSink } from './events.js';
import {
  EdiJsonError,
  formName,
  setsKey,
  type EdiJson,
  type GroupJson,
  type SegmentJson,
  type SetJson,
} from './form.js';
import { checkStart, checkTrailing } from './start.js';

export class DocumentBuilder implements EventSink {
  #doc: Partial<EdiJson> = {};
  #group: GroupJson | null = null;
  #set: SetJson | null = null;
  #done = false;

  event(e: EdiEvent): void {
    const doc = this.#doc;
    switch (e.type) {
      case 'start':
        Object.assign(doc, {
          format: formName,
          standard: e.standard,
          delimiters: e.delimiters,
          una: e.una,
          leading: e.leading,
          line_break: e.line_break,
        });
        return;
      case 'interchange':
        doc.header = e.segment;
        return;
      case 'group':
        this.#group = { header: e.segment, [setsKey(doc.standard!)]: [], trailer: e.segment };
        (doc.groups ??= []).push(this.#group);
        return;
      case 'set':
        this.#set = { header: e.segment, segments: [], trailer: e.segment };
        if (this.#group) this.#group[setsKey(doc.standard!)]!.push(this.#set);
        else (doc.messages ??= []).push(this.#set);
        return;
      case 'segment':
        this.#set!.segments.push(e.segment);
        return;
      case 'set-end':
        this.#set!.trailer = e.segment;
        this.#set = null;
        return;
      case 'group-end':
        this.#group!.trailer = e.segment;
        this.#group = null;
        return;
      case 'end':
        if (doc.standard === 'x12') doc.groups ??= [];
        else if (!doc.groups) doc.messages ??= [];
        doc.trailer = e.segment;
        doc.trailing = e.trailing;
        this.#done = true;
        return;
    }
  }

  get document(): EdiJson {
    if (!this.#done) throw new EdiJsonError('the interchange has no trailer');
    return this.#doc as EdiJson;
  }
}

const need = (value: unknown, what: string): void => {
  if (typeof value !== 'object' || value === null) throw new EdiJsonError(`${what} is missing`);
};

/** The events of a document, checking its shape on the way. */
export function* walkDocument(doc: EdiJson): Generator<EdiEvent> {
  if (typeof doc !== 'object' || doc === null) throw new EdiJsonError('the document must be a JSON object');
  const start = checkStart(doc as unknown as Record<string, unknown>);
  yield start;
  need(doc.header, 'header (the interchange header)');
  yield { type: 'interchange', segment: doc.header };
  const key = setsKey(start.standard);
  const sets = function* (list: unknown, where: string): Generator<EdiEvent> {
    if (!Array.isArray(list)) throw new EdiJsonError(`${where} must be an array`);
    for (const [i, set] of (list as SetJson[]).entries()) {
      const at = `${where}[${i}]`;
      need(set, at);
      need(set.header, `${at}.header`);
      yield { type: 'set', segment: set.header };
      if (!Array.isArray(set.segments)) throw new EdiJsonError(`${at}.segments must be an array`);
      for (const segment of set.segments as SegmentJson[]) yield { type: 'segment', segment };
      need(set.trailer, `${at}.trailer`);
      yield { type: 'set-end', segment: set.trailer };
    }
  };
  if (doc.groups !== undefined && doc.messages !== undefined)
    throw new EdiJsonError('give groups or messages, not both');
  if (start.standard === 'x12' || doc.groups !== undefined) {
    if (!Array.isArray(doc.groups)) throw new EdiJsonError('groups must be an array');
    for (const [i, group] of doc.groups.entries()) {
      need(group, `groups[${i}]`);
      need(group.header, `groups[${i}].header`);
      yield { type: 'group', segment: group.header };
      yield* sets(group[key], `groups[${i}].${key}`);
      need(group.trailer, `groups[${i}].trailer`);
      yield { type: 'group-end', segment: group.trailer };
    }
  } else yield* sets(doc.messages, 'messages');
  need(doc.trailer, 'trailer (the interchange trailer)');
  yield { type: 'end', segment: doc.trailer, trailing: checkTrailing(doc.trailing) };
}
