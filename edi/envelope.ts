/**
 * The envelope of an X12 or EDIFACT interchange, read from its first segments only: who sends
 * and who receives it (id and qualifier), its control numbers, and the document types seen
 * before the head ends. Routing needs no more, so nothing past the first transaction set's
 * header is read (envelope-reader.ts bounds it).
 */
import { SegmentSplitter, componentsOf, plain, type Segment } from './segments.js';
import {
  edifactDelimiters,
  isaLength,
  standardOf,
  startOf,
  x12Delimiters,
  type Delimiters,
  type EdiStandard,
} from './syntax.js';

export interface InterchangeParty {
  /** X12 ISA05/ISA07, EDIFACT UNB 0007 (empty when the sender left it out). */
  qualifier: string;
  /** X12 ISA06/ISA08 without its padding, EDIFACT UNB 0004/0010. */
  id: string;
}

export interface EdiEnvelope {
  standard: EdiStandard;
  /** X12 ISA12 (00401, 00501), EDIFACT syntax identifier and version (UNOA:3). */
  version: string;
  sender: InterchangeParty;
  receiver: InterchangeParty;
  /** X12 ISA13, EDIFACT UNB 0020. */
  interchange_control: string;
  /** X12 GS06 of each group read, EDIFACT UNG 0048 (none when messages are not grouped). */
  group_controls: string[];
  /** X12 transaction set ids (ST01: 850, 997), EDIFACT message types (UNH 0065: ORDERS, CONTRL). */
  document_types: string[];
  /** X12 ISA15 `T`, EDIFACT UNB 0035 `1`. */
  test: boolean;
}

/** What reading a head gives: an envelope, not EDI at all, or EDI whose envelope is broken. */
export type HeadReading =
  | { kind: 'envelope'; envelope: EdiEnvelope; delimiters: Delimiters }
  | { kind: 'not-edi' }
  | { kind: 'broken'; standard: EdiStandard; problem: string };

/**
 * Reads the envelope from the start of a payload. `complete` says the head is the whole
 * payload (so a missing segment is missing, not just not read yet); otherwise an envelope
 * needs the interchange header and at least one transaction set (or message) header.
 */
export function readHead(head: string, complete: boolean): HeadReading | 'more' {
  const standard = standardOf(head);
  if (!standard) return { kind: 'not-edi' };
  const text = head.slice(startOf(head));
  return standard === 'x12' ? readX12(text, complete) : readEdifact(text, complete);
}

/** The segments an envelope is read from: the interchange header, group headers, set headers. */
const x12Tags = new Set(['ISA', 'GS', 'ST']);
const edifactTags = new Set(['UNB', 'UNG', 'UNH']);

function readX12(text: string, complete: boolean): HeadReading | 'more' {
  if (text.length < isaLength) return complete ? broken('x12', 'the ISA segment is cut short') : 'more';
  const d = x12Delimiters(text);
  if (typeof d === 'string') return broken('x12', d);
  const segments = new SegmentSplitter(d, x12Tags).push(text);
  const isa = segments[0]!;
  const e = (i: number) => (isa.elements[i - 1] ?? '').trim();
  const envelope: EdiEnvelope = {
    standard: 'x12',
    version: e(12),
    sender: { qualifier: e(5), id: e(6) },
    receiver: { qualifier: e(7), id: e(8) },
    interchange_control: e(13),
    group_controls: [],
    document_types: [],
    test: e(15) === 'T',
  };
  const unfit = controlCharactersIn(envelope);
  if (unfit) return broken('x12', unfit);
  const headerSeen = collect(segments, envelope, d, { group: 'GS', set: 'ST' });
  if (!headerSeen && !complete) return 'more';
  return { kind: 'envelope', envelope, delimiters: d };
}

function readEdifact(text: string, complete: boolean): HeadReading | 'more' {
  if (text.startsWith('UNA') && text.length < 9)
    return complete ? broken('edifact', 'the UNA is cut short') : 'more';
  const d = edifactDelimiters(text);
  const body = text.startsWith('UNA') ? text.slice(9) : text;
  const splitter = new SegmentSplitter(d, edifactTags);
  const segments = splitter.push(body);
  const unb = segments.find((s) => s.tag.trim() === 'UNB');
  if (!unb)
    return complete || splitter.count > 1
      ? broken('edifact', 'no UNB segment opens the interchange')
      : 'more';
  const [syntax = '', syntaxVersion = ''] = componentsOf(unb.elements[0], d);
  const [senderId = '', senderQualifier = ''] = componentsOf(unb.elements[1], d);
  const [receiverId = '', receiverQualifier = ''] = componentsOf(unb.elements[2], d);
  const envelope: EdiEnvelope = {
    standard: 'edifact',
    version: `${syntax}:${syntaxVersion}`,
    sender: { qualifier: senderQualifier, id: senderId },
    receiver: { qualifier: receiverQualifier, id: receiverId },
    interchange_control: plain(unb.elements[4], d),
    group_controls: [],
    document_types: [],
    test: plain(unb.elements[10], d) === '1',
  };
  const unfit = controlCharactersIn(envelope);
  if (unfit) return broken('edifact', unfit);
  const headerSeen = collect(segments, envelope, d, { group: 'UNG', set: 'UNH' });
  if (!headerSeen && !complete) return 'more';
  return { kind: 'envelope', envelope, delimiters: d };
}

// eslint-disable-next-line no-control-regex
const controlCharacter = /[\u0000-\u001f\u007f]/;

/**
 * Which of the interchange's ids holds a control character (a CR/LF inside an EDIFACT element,
 * a NUL), or null. Such an id names no party (party ids refuse them) and would be stored and
 * shown as it came, line breaks and all: the envelope is broken instead, so the payload is
 * offered as if it were not EDI.
 */
function controlCharactersIn(envelope: EdiEnvelope): string | null {
  const fields: [string, string][] = [
    ['sender id', envelope.sender.id],
    ['sender qualifier', envelope.sender.qualifier],
    ['receiver id', envelope.receiver.id],
    ['receiver qualifier', envelope.receiver.qualifier],
    ['control number', envelope.interchange_control],
  ];
  const found = fields.find(([, value]) => controlCharacter.test(value));
  return found ? `the interchange's ${found[0]} contains control characters` : null;
}

/** Adds the group controls and document types of the segments read; true once a set header was seen. */
function collect(
  segments: Segment[],
  envelope: EdiEnvelope,
  d: Delimiters,
  tags: { group: string; set: string },
): boolean {
  let seen = false;
  for (const s of segments) {
    if (s.tag === tags.group) {
      const control = plain(tags.group === 'GS' ? s.elements[5] : s.elements[4], d).trim();
      if (control !== '') envelope.group_controls.push(control);
    } else if (s.tag === tags.set) {
      seen = true;
      const type = (tags.set === 'ST' ? plain(s.elements[0], d) : componentsOf(s.elements[1], d)[0]!).trim();
      if (type !== '' && !envelope.document_types.includes(type)) envelope.document_types.push(type);
    }
  }
  return seen;
}

const broken = (standard: EdiStandard, problem: string): HeadReading => ({
  kind: 'broken',
  standard,
  problem,
});
