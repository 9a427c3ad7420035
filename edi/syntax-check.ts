/**
 * A full pass over an interchange, streamed segment by segment (memory bounded by one
 * segment), that checks what every X12 or EDIFACT interchange must satisfy whatever its
 * documents say: envelope headers and trailers that pair up, control numbers that agree,
 * segment and set counts that match, segment tags of the right form, and no control
 * characters in data. It reports each problem in the code the acknowledgement carries
 * (X12 AK3/AK4/AK5/AK9 and IK3/IK4/IK5, EDIFACT syntax error codes of ISO 9735 data element
 * 0085). Implementation-guide rules (which segments a purchase order needs) are the
 * translator's business and stay out, as in every gateway that acknowledges syntax only.
 */
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { readHead, type EdiEnvelope } from './envelope.js';
import { SegmentSplitter, SegmentTooLong, componentsOf, plain, type Segment } from './segments.js';
import type { ElementError, GroupReport, InterchangeReport, SetReport } from './report.js';
import { startOf, type Delimiters } from './syntax.js';

/** Control characters never belong in element data (tabs and line breaks included). */
// eslint-disable-next-line no-control-regex
const controlCharacter = /[\u0000-\u001f\u007f]/;

interface Checker {
  segment(s: Segment): void;
  finish(unterminated: string | null): void;
}

/** Checks a whole interchange from a stream; a payload that is not EDI or whose envelope is broken gives a reason instead. */
export async function checkInterchange(stream: Readable): Promise<InterchangeReport | { problem: string }> {
  const decoder = new StringDecoder('latin1');
  let splitter: SegmentSplitter | null = null;
  let checker: Checker | null = null;
  let report: InterchangeReport | null = null;
  let head = '';
  try {
    for await (const chunk of stream) {
      const text = decoder.write(chunk as Buffer);
      if (!splitter) {
        head += text;
        const reading = readHead(head, false);
        if (reading === 'more') continue;
        if (reading.kind !== 'envelope') return { problem: problemOf(reading) };
        ({ splitter, checker, report } = start(reading.envelope, reading.delimiters, head));
        continue;
      }
      for (const s of splitter.push(text)) checker!.segment(s);
    }
    if (!splitter) {
      const reading = readHead(head, true);
      if (reading === 'more' || reading.kind !== 'envelope') return { problem: problemOf(reading) };
      ({ splitter, checker, report } = start(reading.envelope, reading.delimiters, head));
    }
    checker!.finish(splitter.end()?.unterminated ?? null);
    return report!;
  } catch (error) {
    if (error instanceof SegmentTooLong) return { problem: error.message };
    throw error;
  } finally {
    stream.destroy();
  }
}

function problemOf(reading: ReturnType<typeof readHead>): string {
  if (reading === 'more' || reading.kind === 'not-edi')
    return 'the payload is not an X12 or EDIFACT interchange';
  if (reading.kind === 'broken') return reading.problem;
  return 'unreadable';
}

function start(envelope: EdiEnvelope, d: Delimiters, head: string) {
  const report: InterchangeReport = {
    envelope: { ...envelope, group_controls: [], document_types: [] },
    delimiters: d,
    groups: [],
    errors: [],
    notes: [],
  };
  const checker = envelope.standard === 'x12' ? new X12Checker(report, d) : new EdifactChecker(report, d);
  const splitter = new SegmentSplitter(d);
  let text = head.slice(startOf(head));
  if (envelope.standard === 'edifact' && text.startsWith('UNA')) text = text.slice(9);
  for (const s of splitter.push(text)) checker.segment(s);
  return { splitter, checker, report };
}

/** Element errors common to both standards: control characters in data. */
function elementErrors(s: Segment, d: Delimiters, code: string): ElementError[] {
  const found: ElementError[] = [];
  s.elements.forEach((element, i) => {
    if (controlCharacter.test(element))
      found.push({ position: i + 1, code, data: plain(element, d).slice(0, 99) });
  });
  return found;
}

class X12Checker implements Checker {
  #group: GroupReport | null = null;
  #set: SetReport | null = null;
  #count = 0;
  #ended = false;

  constructor(
    readonly report: InterchangeReport,
    readonly d: Delimiters,
  ) {}

  segment(s: Segment): void {
    const e = (i: number) => plain(s.elements[i - 1], this.d).trim();
    switch (s.tag) {
      case 'ISA':
        return;
      case 'GS':
        this.#closeGroup('3');
        this.#group = { functional_id: e(1), control: e(6), version: e(8), sets: [], errors: [] };
        if (e(6) !== '') this.report.envelope.group_controls.push(e(6));
        this.report.groups.push(this.#group);
        return;
      case 'ST': {
        this.#closeSet('2');
        if (!this.#group) this.report.notes.push(`ST at segment ${s.position} is outside a functional group`);
        this.#set = { type: e(1), control: e(2), version: e(3), segment_errors: [], errors: [] };
        if (e(1) === '') this.#set.errors.push('6');
        if (e(2) === '') this.#set.errors.push('7');
        else if (!this.report.envelope.document_types.includes(e(1)))
          this.report.envelope.document_types.push(e(1));
        this.#group?.sets.push(this.#set);
        this.#count = 1;
        return;
      }
      case 'SE': {
        const set = this.#set;
        if (!set) {
          this.report.notes.push(`SE at segment ${s.position} closes no transaction set`);
          return;
        }
        this.#count += 1;
        if (e(1) !== String(this.#count)) set.errors.push('4');
        if (e(2) !== set.control) set.errors.push('3');
        this.#set = null;
        return;
      }
      case 'GE': {
        this.#closeSet('2');
        const group = this.#group;
        if (!group) {
          this.report.notes.push(`GE at segment ${s.position} closes no functional group`);
          return;
        }
        if (e(1) !== String(group.sets.length)) group.errors.push('5');
        if (e(2) !== group.control) group.errors.push('4');
        this.#group = null;
        return;
      }
      case 'IEA':
        this.#closeGroup('3');
        this.#ended = true;
        if (e(1) !== String(this.report.groups.length))
          this.report.notes.push(
            `IEA counts ${e(1)} groups, the interchange has ${this.report.groups.length}`,
          );
        if (e(2) !== this.report.envelope.interchange_control)
          this.report.notes.push(
            `IEA control number ${e(2)} differs from ISA13 ${this.report.envelope.interchange_control}`,
          );
        return;
    }
    if (!this.#set) {
      this.report.notes.push(`segment ${s.tag} at ${s.position} is outside a transaction set`);
      return;
    }
    this.#count += 1;
    this.#read(s);
    const elements = elementErrors(s, this.d, '6');
    // AK3-04: 1 unrecognized segment id; 8 segment has data element errors.
    if (!/^[A-Z][A-Z0-9]{1,2}$/.test(s.tag))
      this.#set.segment_errors.push({
        tag: s.tag.slice(0, 3),
        position: this.#count,
        code: '1',
        elements: [],
      });
    else if (elements.length > 0)
      this.#set.segment_errors.push({ tag: s.tag, position: this.#count, code: '8', elements });
  }

  /** What an acknowledgement (997, 999) acknowledges. */
  #read(s: Segment): void {
    const set = this.#set!;
    if (set.type !== '997' && set.type !== '999') return;
    const e = (i: number) => plain(s.elements[i - 1], this.d).trim();
    if (s.tag === 'AK1') set.acknowledges = { group_control: e(2), accepted: false };
    if (s.tag === 'AK9' && set.acknowledges) set.acknowledges.accepted = e(1) === 'A' || e(1) === 'E';
  }

  #closeSet(code: string): void {
    if (this.#set) this.#set.errors.push(code);
    this.#set = null;
  }

  #closeGroup(code: string): void {
    this.#closeSet('2');
    if (this.#group) this.#group.errors.push(code);
    this.#group = null;
  }

  finish(unterminated: string | null): void {
    if (unterminated !== null)
      this.report.notes.push(`the last segment has no terminator: ${unterminated.slice(0, 40)}`);
    this.#closeGroup('3');
    if (!this.#ended) this.report.notes.push('the interchange has no IEA trailer');
  }
}

class EdifactChecker implements Checker {
  #group: GroupReport | null = null;
  /** True while the group was opened by a UNG (else it is the interchange's implicit one). */
  #explicit = false;
  #set: SetReport | null = null;
  #count = 0;
  #ended = false;
  #sets = 0;
  #ungs = 0;

  constructor(
    readonly report: InterchangeReport,
    readonly d: Delimiters,
  ) {}

  segment(s: Segment): void {
    const e = (i: number) => plain(s.elements[i - 1], this.d).trim();
    const c = (i: number) => componentsOf(s.elements[i - 1], this.d).map((x) => x.trim());
    switch (s.tag) {
      case 'UNB':
        return;
      case 'UNG':
        this.#closeGroup();
        this.#group = { functional_id: e(1), control: e(5), version: '', sets: [], errors: [] };
        this.#explicit = true;
        this.#ungs += 1;
        if (e(5) !== '') this.report.envelope.group_controls.push(e(5));
        this.report.groups.push(this.#group);
        return;
      case 'UNH': {
        this.#closeSet();
        const group = this.#group ?? this.#implicitGroup();
        const [type = '', version = '', release = '', agency = ''] = c(2);
        this.#set = {
          type,
          control: e(1),
          version: `${version}:${release}:${agency}`,
          segment_errors: [],
          errors: [],
        };
        if (type === '' || e(1) === '') this.#set.errors.push('13');
        else if (!this.report.envelope.document_types.includes(type))
          this.report.envelope.document_types.push(type);
        group.sets.push(this.#set);
        this.#sets += 1;
        this.#count = 1;
        return;
      }
      case 'UNT': {
        const set = this.#set;
        if (!set) {
          this.report.notes.push(`UNT at segment ${s.position} closes no message`);
          return;
        }
        this.#count += 1;
        if (e(1) !== String(this.#count)) set.errors.push('29');
        if (e(2) !== set.control) set.errors.push('28');
        this.#set = null;
        return;
      }
      case 'UNE': {
        this.#closeSet();
        const group = this.#explicit ? this.#group : null;
        if (!group) {
          this.report.notes.push(`UNE at segment ${s.position} closes no group`);
          return;
        }
        if (e(1) !== String(group.sets.length)) group.errors.push('29');
        if (e(2) !== group.control) group.errors.push('28');
        this.#group = null;
        this.#explicit = false;
        return;
      }
      case 'UNZ': {
        this.#closeGroup();
        this.#ended = true;
        // UNZ 0036 counts the groups when there are any, else the messages.
        const expected = this.#ungs > 0 ? this.#ungs : this.#sets;
        if (e(1) !== String(expected)) this.report.errors.push('29');
        if (e(2) !== this.report.envelope.interchange_control) this.report.errors.push('28');
        return;
      }
    }
    if (!this.#set) {
      this.report.notes.push(`segment ${s.tag} at ${s.position} is outside a message`);
      return;
    }
    this.#count += 1;
    this.#read(s);
    const elements = elementErrors(s, this.d, '21');
    // 0085 code 12 (invalid value) for a tag that is not three letters; 21 for invalid characters.
    if (!/^[A-Z]{3}$/.test(s.tag))
      this.#set.segment_errors.push({
        tag: s.tag.slice(0, 3),
        position: this.#count,
        code: '12',
        elements: [],
      });
    else if (elements.length > 0)
      this.#set.segment_errors.push({ tag: s.tag, position: this.#count, code: '21', elements });
  }

  #implicitGroup(): GroupReport {
    this.#group = { functional_id: '', control: '', version: '', sets: [], errors: [] };
    this.report.groups.push(this.#group);
    return this.#group;
  }

  /** What a CONTRL acknowledges: its UCI names the interchange and says what became of it. */
  #read(s: Segment): void {
    const set = this.#set!;
    if (set.type !== 'CONTRL' || s.tag !== 'UCI') return;
    const action = plain(s.elements[3], this.d).trim();
    set.acknowledges = {
      interchange_control: plain(s.elements[0], this.d).trim(),
      accepted: action === '7' || action === '8',
    };
  }

  #closeSet(): void {
    // A message without its UNT: 0085 code 13, missing.
    if (this.#set) this.#set.errors.push('13');
    this.#set = null;
  }

  #closeGroup(): void {
    this.#closeSet();
    if (this.#group && this.#explicit) this.#group.errors.push('13');
    this.#group = null;
    this.#explicit = false;
  }

  finish(unterminated: string | null): void {
    if (unterminated !== null)
      this.report.notes.push(`the last segment has no terminator: ${unterminated.slice(0, 40)}`);
    this.#closeGroup();
    if (!this.#ended) {
      this.report.errors.push('13');
      this.report.notes.push('the interchange has no UNZ trailer');
    }
  }
}
