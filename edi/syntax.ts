/**
 * The two EDI syntaxes pier reads: which one a payload starts with, and the characters that
 * separate its segments, elements and components. X12 takes them from fixed places of the ISA
 * segment (which is always 106 characters); EDIFACT from the UNA service string advice, or the
 * defaults of ISO 9735 when there is none.
 */

export type EdiStandard = 'x12' | 'edifact';

export interface Delimiters {
  segment: string;
  element: string;
  component: string;
  /** X12 repetition separator (ISA11 from version 00402 on), EDIFACT repetition (`*` in syntax 4). */
  repetition: string;
  /** EDIFACT release character (escapes the next character); empty for X12, which has none. */
  release: string;
}

/** The length of an X12 ISA segment, terminator included: its fields have fixed widths. */
export const isaLength = 106;

/** ISO 9735 default service characters, used when an EDIFACT interchange has no UNA. */
export const edifactDefaults: Delimiters = {
  component: ':',
  element: '+',
  release: '?',
  repetition: '*',
  segment: "'",
};

/** Characters allowed before the interchange starts (a file may begin with a byte order mark or a blank line). */
const leading = /^[\uFEFF\s]*/;

/** Which syntax a text starts with, or null when it is neither (then it is not routed as EDI). */
export function standardOf(head: string): EdiStandard | null {
  const start = head.replace(leading, '');
  if (start.startsWith('ISA')) return 'x12';
  if (start.startsWith('UNA') || start.startsWith('UNB')) return 'edifact';
  return null;
}

/** Offset of the first character of the interchange. */
export const startOf = (head: string): number => leading.exec(head)![0].length;

/** Delimiters of an X12 interchange from its ISA segment (`isa` starts at the `I`), or a problem. */
export function x12Delimiters(isa: string): Delimiters | string {
  if (isa.length < isaLength) return 'the ISA segment is shorter than 106 characters';
  const element = isa[3]!;
  const component = isa[104]!;
  const segment = isa[105]!;
  const repetitionField = isa[82]!;
  if (/[A-Za-z0-9 ]/.test(element))
    return `the ISA element separator '${element}' is a letter, digit or space`;
  // ISA is fixed width: every separator must fall where the standard puts it.
  const fields = isa.slice(0, 105).split(element);
  if (fields.length !== 17) return 'the ISA segment does not have 16 elements of fixed width';
  if (segment === element || segment === component) return 'the segment terminator repeats another separator';
  return {
    element,
    component,
    segment,
    // In version 00401 and before ISA11 is the standards identifier `U`, not a separator.
    repetition: /[A-Za-z0-9 ]/.test(repetitionField) ? '' : repetitionField,
    release: '',
  };
}

/** Delimiters of an EDIFACT interchange: from its UNA (`una` starts at the `U`) or the defaults. */
export function edifactDelimiters(head: string): Delimiters {
  if (!head.startsWith('UNA') || head.length < 9) return edifactDefaults;
  return {
    component: head[3]!,
    element: head[4]!,
    // head[5] is the decimal mark, head[7] reserved (the repetition separator in syntax 4).
    release: head[6] === ' ' ? '' : head[6]!,
    repetition: head[7] === ' ' ? '' : head[7]!,
    segment: head[8]!,
  };
}
