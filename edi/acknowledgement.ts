/**
 * Builds the functional acknowledgement of a checked interchange: an X12 997 or 999 (one per
 * functional group, in one interchange) or an EDIFACT CONTRL, addressed back to the sender,
 * with every syntax error syntax-check.ts found in the standard's codes. Sets and messages
 * with an error are rejected; the others are accepted.
 */
import type { GroupReport, InterchangeReport, SetReport } from './report.js';
import { setAccepted } from './report.js';
import type { Delimiters } from './syntax.js';

export type AcknowledgementKind = '997' | '999' | 'CONTRL';

export interface BuiltAcknowledgement {
  kind: AcknowledgementKind;
  text: string;
  file_name: string;
  /** The acknowledgement's own interchange control number. */
  interchange_control: string;
  /** Whether it accepts everything it acknowledges. */
  accepts_all: boolean;
}

const pad = (text: string, width: number) => text.slice(0, width).padEnd(width, ' ');
const digits = (n: number, width: number) => String(n % 10 ** width).padStart(width, '0');

function stamp(at: Date) {
  const iso = at.toISOString();
  return {
    ccyymmdd: iso.slice(0, 10).replaceAll('-', ''),
    yymmdd: iso.slice(2, 10).replaceAll('-', ''),
    hhmm: iso.slice(11, 16).replace(':', ''),
  };
}

/** `control`: a number this side has not used for an acknowledgement to this partner before. */
export function buildAcknowledgement(
  report: InterchangeReport,
  kind: AcknowledgementKind,
  control: number,
  at: Date,
): BuiltAcknowledgement {
  return kind === 'CONTRL' ? buildContrl(report, control, at) : buildX12(report, kind, control, at);
}

function buildX12(
  report: InterchangeReport,
  kind: '997' | '999',
  control: number,
  at: Date,
): BuiltAcknowledgement {
  const { envelope } = report;
  // Separators of the interchange acknowledged, so the partner's translator reads both alike.
  const d = report.delimiters;
  const el = d.element;
  const seg = (...parts: string[]) => parts.join(el).replace(new RegExp(`\\${el}+$`), '') + d.segment + '\n';
  const t = stamp(at);
  const isaControl = digits(control, 9);
  // A 999 exists from version 00501 on; a 997 answers in the version it was sent.
  const version = kind === '999' ? '00501' : envelope.version || '00401';
  const repetition = version >= '00402' ? d.repetition || '^' : 'U';
  let text =
    [
      'ISA',
      '00',
      pad('', 10),
      '00',
      pad('', 10),
      pad(envelope.receiver.qualifier || 'ZZ', 2),
      pad(envelope.receiver.id, 15),
      pad(envelope.sender.qualifier || 'ZZ', 2),
      pad(envelope.sender.id, 15),
      t.yymmdd,
      t.hhmm,
      repetition,
      version,
      isaControl,
      '0',
      envelope.test ? 'T' : 'P',
      d.component,
    ].join(el) +
    d.segment +
    '\n';
  let accepts = true;
  const groups = report.groups;
  groups.forEach((group, i) => {
    const groupControl = String(control * 10 + i).slice(-9);
    const gsVersion = kind === '999' ? '005010X231A1' : group.version || '004010';
    const g = stamp(at);
    text += seg(
      'GS',
      'FA',
      envelope.receiver.id,
      envelope.sender.id,
      g.ccyymmdd,
      g.hhmm,
      groupControl,
      'X',
      gsVersion,
    );
    const body = x12Body(group, kind, d);
    accepts &&= body.accepted;
    const stControl = digits(i + 1, 4);
    const lines = [seg('ST', kind, stControl, ...(kind === '999' ? ['005010X231A1'] : [])), ...body.lines];
    text += lines.join('') + seg('SE', String(lines.length + 1), stControl);
    text += seg('GE', '1', groupControl);
  });
  text += seg('IEA', String(groups.length), isaControl);
  return {
    kind,
    text,
    file_name: `${kind}-${envelope.sender.id}-${envelope.interchange_control}.edi`.replace(
      /[^A-Za-z0-9._-]/g,
      '_',
    ),
    interchange_control: isaControl,
    accepts_all: accepts,
  };
}

/** AK1…AK9 of one group: AK2/AK5 per set (AK3/AK4, or IK3/IK4/IK5 in a 999, per error). */
function x12Body(
  group: GroupReport,
  kind: '997' | '999',
  d: Delimiters,
): { lines: string[]; accepted: boolean } {
  const el = d.element;
  const seg = (...parts: string[]) => parts.join(el).replace(new RegExp(`\\${el}+$`), '') + d.segment + '\n';
  const lines = [seg('AK1', group.functional_id, group.control, ...(kind === '999' ? [group.version] : []))];
  let acceptedSets = 0;
  for (const set of group.sets) {
    const ok = setAccepted(set);
    if (ok) acceptedSets += 1;
    lines.push(seg('AK2', set.type, set.control, ...(kind === '999' && set.version ? [set.version] : [])));
    for (const error of set.segment_errors) {
      lines.push(seg(kind === '999' ? 'IK3' : 'AK3', error.tag, String(error.position), '', error.code));
      for (const element of error.elements) {
        const position = element.component
          ? `${element.position}${d.component}${element.component}`
          : String(element.position);
        lines.push(
          seg(kind === '999' ? 'IK4' : 'AK4', position, '', element.code, clean(element.data ?? '', d)),
        );
      }
    }
    lines.push(seg(kind === '999' ? 'IK5' : 'AK5', ok ? 'A' : 'R', ...set.errors.slice(0, 5)));
  }
  const groupOk = group.errors.length === 0;
  const all = group.sets.length;
  const status = !groupOk || acceptedSets === 0 ? 'R' : acceptedSets === all ? 'A' : 'P';
  lines.push(
    seg(
      'AK9',
      status,
      String(all),
      String(all),
      String(groupOk ? acceptedSets : 0),
      ...group.errors.slice(0, 5),
    ),
  );
  return { lines, accepted: status === 'A' };
}

/** The bad data shown in an AK4/IK4, without separators or control characters that would break the segment. */
function clean(data: string, d: Delimiters): string {
  const separators = [d.element, d.segment, d.component, d.repetition];
  return [...data].filter((ch) => !controlCharacter.test(ch) && !separators.includes(ch)).join('');
}

// eslint-disable-next-line no-control-regex
const controlCharacter = /[\u0000-\u001f\u007f]/;

function buildContrl(report: InterchangeReport, control: number, at: Date): BuiltAcknowledgement {
  const { envelope } = report;
  const d = report.delimiters;
  const release = (value: string) =>
    d.release === ''
      ? value
      : [...value]
          .map((ch) => ([d.element, d.component, d.segment, d.release].includes(ch) ? d.release + ch : ch))
          .join('');
  const seg = (...parts: string[]) =>
    parts.join(d.element).replace(new RegExp(`\\${d.element}+$`), '') + d.segment + '\n';
  const comp = (...parts: string[]) =>
    parts
      .map(release)
      .join(d.component)
      .replace(new RegExp(`\\${d.component}+$`), '');
  const t = stamp(at);
  const ref = String(control).slice(-14);
  const [syntax = 'UNOA', syntaxVersion = '3'] = envelope.version.split(':');
  const four = syntaxVersion === '4';
  const una = `UNA${d.component}${d.element}.${d.release || ' '}${four ? d.repetition || '*' : ' '}${d.segment}\n`;
  const lines: string[] = [];
  const sets: SetReport[] = report.groups.flatMap((g) => g.sets);
  const allOk =
    report.errors.length === 0 &&
    sets.every(setAccepted) &&
    report.groups.every((g) => g.errors.length === 0);
  // UCI 0083: 7 acknowledged (lower levels too, unless rejected below), 4 rejected.
  const uciAction = report.errors.length > 0 ? '4' : '7';
  lines.push(seg('UNH', '1', comp('CONTRL', four ? '4' : '2', four ? '1' : '2', 'UN')));
  lines.push(
    seg(
      'UCI',
      release(envelope.interchange_control),
      comp(envelope.sender.id, envelope.sender.qualifier),
      comp(envelope.receiver.id, envelope.receiver.qualifier),
      uciAction,
      ...(report.errors.length > 0 ? [report.errors[0]!] : []),
    ),
  );
  for (const group of report.groups) {
    for (const set of group.sets) {
      const ok = setAccepted(set);
      // Accepted messages are acknowledged by the UCI's action 7; a rejected one gets its UCM, UCS and UCD.
      if (ok && group.errors.length === 0) continue;
      const [version = '', rel = '', agency = ''] = set.version.split(':');
      lines.push(
        seg(
          'UCM',
          release(set.control),
          comp(set.type, version, rel, agency),
          '4',
          set.errors[0] ?? group.errors[0] ?? '',
        ),
      );
      for (const error of set.segment_errors) {
        lines.push(seg('UCS', String(error.position), error.elements.length > 0 ? '' : error.code));
        for (const element of error.elements)
          lines.push(
            seg(
              'UCD',
              element.code,
              comp(String(element.position), ...(element.component ? [String(element.component)] : [])),
            ),
          );
      }
    }
  }
  const body = lines.join('') + seg('UNT', String(lines.length + 1), '1');
  const unb = seg(
    'UNB',
    comp(syntax, syntaxVersion),
    comp(envelope.receiver.id, envelope.receiver.qualifier),
    comp(envelope.sender.id, envelope.sender.qualifier),
    comp(t.yymmdd, t.hhmm),
    ref,
    ...(envelope.test ? ['', '', '', '', '', '1'] : []),
  );
  return {
    kind: 'CONTRL',
    text: una + unb + body + seg('UNZ', '1', ref),
    file_name: `CONTRL-${envelope.sender.id}-${envelope.interchange_control}.edi`.replace(
      /[^A-Za-z0-9._-]/g,
      '_',
    ),
    interchange_control: ref,
    accepts_all: allOk,
  };
}
