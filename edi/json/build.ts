/**
 * Builds a whole interchange in the JSON form from documents without envelopes: pier writes the
 * envelopes (ISA/GS/GE/IEA, UNA/UNB/UNZ) from the parties' interchange ids and the sender's
 * settings, counts the segments and sets, and puts in the control numbers it was given. X12 sets
 * are grouped by functional id (GS01) in the order they come.
 */
import { edifactDefaults } from '../syntax.js';
import {
  EdiJsonError,
  formName,
  type DelimitersJson,
  type EdiJson,
  type ElementValue,
  type SegmentJson,
  type SetJson,
} from './form.js';

export interface BuildParty {
  qualifier: string;
  id: string;
}

export interface BuildSet {
  /** X12 transaction set id (850); EDIFACT message identifier (ORDERS:D:96A:UN, as components). */
  type: string | string[];
  /** X12 GS01; without it, the usual one for the set id. */
  functional_id?: string | undefined;
  segments: SegmentJson[];
}

export interface BuildSettings {
  standard: 'x12' | 'edifact';
  /** X12 ISA12 (00401, 00501); EDIFACT syntax identifier and version (UNOC:3). */
  version?: string | undefined;
  test: boolean;
  acknowledgement_requested: boolean;
  delimiters?: Partial<DelimitersJson> | undefined;
  line_break: string;
  sender: BuildParty;
  receiver: BuildParty;
  at: Date;
}

/** First numbers of each level's block (control-numbers.ts): interchange, group, set. */
export interface BuildNumbers {
  interchange: number;
  group: number;
  set: number;
}

/** The usual GS01 for the common transaction sets; others must say theirs. */
const functionalIds: Record<string, string> = {
  '810': 'IN',
  '850': 'PO',
  '855': 'PR',
  '856': 'SH',
  '860': 'PC',
  '865': 'CA',
  '997': 'FA',
  '999': 'FA',
};

/** How many group and set numbers a build takes. */
export function numbersNeeded(
  settings: Pick<BuildSettings, 'standard'>,
  sets: BuildSet[],
): { interchange: 1; group: number; set: number } {
  const groups = settings.standard === 'x12' ? new Set(sets.map((s) => functionalIdOf(s))).size : 0;
  return { interchange: 1, group: groups, set: sets.length };
}

function functionalIdOf(s: BuildSet): string {
  const type = typeof s.type === 'string' ? s.type : s.type[0]!;
  const id = s.functional_id ?? functionalIds[type];
  if (!id)
    throw new EdiJsonError(
      `set ${type}: give its functional_id (GS01); pier knows it only for ${Object.keys(functionalIds).join(', ')}`,
    );
  return id;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const seg = (tag: string, ...elements: ElementValue[]): SegmentJson => ({ tag, elements });

export function buildInterchange(settings: BuildSettings, sets: BuildSet[], numbers: BuildNumbers): EdiJson {
  if (sets.length === 0)
    throw new EdiJsonError('give at least one set (X12 transaction set or EDIFACT message)');
  return settings.standard === 'x12'
    ? buildX12(settings, sets, numbers)
    : buildEdifact(settings, sets, numbers);
}

function stamp(at: Date) {
  const iso = at.toISOString();
  return {
    date8: iso.slice(0, 10).replaceAll('-', ''),
    date6: iso.slice(2, 10).replaceAll('-', ''),
    time: iso.slice(11, 16).replace(':', ''),
  };
}

function buildX12(s: BuildSettings, sets: BuildSet[], n: BuildNumbers): EdiJson {
  const version = s.version ?? '00401';
  const d: DelimitersJson = {
    segment: s.delimiters?.segment ?? '~',
    element: s.delimiters?.element ?? '*',
    component: s.delimiters?.component ?? '>',
    repetition: s.delimiters?.repetition ?? (version >= '00402' ? '^' : ''),
    release: '',
  };
  const { date8, date6, time } = stamp(s.at);
  const control = pad(n.interchange, 9);
  const fixed = (value: string, width: number, what: string) => {
    if (value.length > width)
      throw new EdiJsonError(
        `the ${what} ${JSON.stringify(value)} is longer than ${width} characters, the width of its ISA field`,
      );
    return value.padEnd(width);
  };
  const header = seg(
    'ISA',
    '00',
    ' '.repeat(10),
    '00',
    ' '.repeat(10),
    fixed(s.sender.qualifier || 'ZZ', 2, 'sender qualifier'),
    fixed(s.sender.id, 15, 'sender id'),
    fixed(s.receiver.qualifier || 'ZZ', 2, 'receiver qualifier'),
    fixed(s.receiver.id, 15, 'receiver id'),
    date6,
    time,
    d.repetition || 'U',
    version,
    control,
    s.acknowledgement_requested ? '1' : '0',
    s.test ? 'T' : 'P',
    d.component,
  );
  const byGroup = new Map<string, BuildSet[]>();
  for (const set of sets) {
    const id = functionalIdOf(set);
    byGroup.set(id, [...(byGroup.get(id) ?? []), set]);
  }
  let setNumber = n.set;
  const groups = [...byGroup.entries()].map(([functionalId, members], g) => {
    const groupControl = String(n.group + g);
    const gsVersion = `${version}0`;
    const transactions: SetJson[] = members.map((m) => {
      const setControl = pad(setNumber++, 4);
      const type = typeof m.type === 'string' ? m.type : m.type[0]!;
      return {
        header: seg('ST', type, setControl, ...(version >= '00501' ? [gsVersion] : [])),
        segments: m.segments,
        trailer: seg('SE', String(m.segments.length + 2), setControl),
      };
    });
    return {
      header: seg('GS', functionalId, s.sender.id, s.receiver.id, date8, time, groupControl, 'X', gsVersion),
      transactions,
      trailer: seg('GE', String(transactions.length), groupControl),
    };
  });
  return {
    format: formName,
    standard: 'x12',
    delimiters: d,
    una: null,
    leading: '',
    line_break: s.line_break,
    header,
    groups,
    trailer: seg('IEA', String(groups.length), control),
    trailing: s.line_break,
  };
}

function buildEdifact(s: BuildSettings, sets: BuildSet[], n: BuildNumbers): EdiJson {
  const [syntax = 'UNOC', syntaxVersion = '3'] = (s.version ?? 'UNOC:3').split(':');
  const d: DelimitersJson = {
    segment: s.delimiters?.segment ?? edifactDefaults.segment,
    element: s.delimiters?.element ?? edifactDefaults.element,
    component: s.delimiters?.component ?? edifactDefaults.component,
    release: s.delimiters?.release ?? edifactDefaults.release,
    repetition: s.delimiters?.repetition ?? (Number(syntaxVersion) >= 4 ? '*' : ''),
  };
  const defaults =
    d.segment === "'" &&
    d.element === '+' &&
    d.component === ':' &&
    d.release === '?' &&
    d.repetition === (Number(syntaxVersion) >= 4 ? '*' : '');
  const una = defaults
    ? null
    : `UNA${d.component}${d.element}.${d.release || ' '}${d.repetition || ' '}${d.segment}`;
  const { date6, date8, time } = stamp(s.at);
  const reference = String(n.interchange);
  const party = (p: BuildParty) => (p.qualifier ? [p.id, p.qualifier] : p.id);
  const unb: ElementValue[] = [
    [syntax, syntaxVersion],
    party(s.sender),
    party(s.receiver),
    [Number(syntaxVersion) >= 4 ? date8 : date6, time],
    reference,
  ];
  if (s.acknowledgement_requested || s.test) unb.push('', '', '', s.acknowledgement_requested ? '1' : '');
  if (s.test) unb.push('', '1');
  const messages: SetJson[] = sets.map((m, i) => {
    const ref = String(n.set + i);
    const type = typeof m.type === 'string' ? m.type.split(':') : m.type;
    return {
      header: seg('UNH', ref, type),
      segments: m.segments,
      trailer: seg('UNT', String(m.segments.length + 2), ref),
    };
  });
  return {
    format: formName,
    standard: 'edifact',
    delimiters: d,
    una,
    leading: '',
    line_break: s.line_break,
    header: seg('UNB', ...unb),
    messages,
    trailer: seg('UNZ', String(messages.length), reference),
    trailing: s.line_break,
  };
}
