/**
 * The JSON form of an X12 or EDIFACT interchange (docs/edi-json.md): everything needed to
 * write the same bytes again (delimiters, the UNA, line breaks, envelopes, groups, sets or
 * messages, segments as element arrays), and, when asked, what each element is called.
 *
 * An element is a string (simple), an array of strings (a composite's components) or an array
 * of arrays (a repeated element: one array of components per occurrence). Values are data:
 * EDIFACT release characters are taken out when read and put back when written.
 */

/** The name and version of the form, the first property of every document. */
export const formName = 'pier-edi-json/1';

export type EdiJsonStandard = 'x12' | 'edifact';

export type ElementValue = string | string[] | string[][];

export interface SegmentJson {
  tag: string;
  elements: ElementValue[];
  /** Read-only annotations: ignored when the form is written back as EDI. */
  name?: string;
  /** Position name of each element (`BEG03`, `C002.1001`), a list for a composite's components. */
  positions?: (string | string[])[];
  /** Directory name of each element (EDIFACT only), null where the table has none. */
  names?: (string | string[] | null)[];
  /** Meaning of coded values, by position name (EDIFACT only). */
  meanings?: Record<string, string>;
}

export interface DelimitersJson {
  segment: string;
  element: string;
  component: string;
  /** Empty when the interchange has none (X12 before 00402, EDIFACT syntax 3). */
  repetition: string;
  /** EDIFACT release character; empty for X12. */
  release: string;
}

/** A transaction set (X12 ST…SE) or message (EDIFACT UNH…UNT). */
export interface SetJson {
  header: SegmentJson;
  segments: SegmentJson[];
  trailer: SegmentJson;
}

/** A functional group (X12 GS…GE, EDIFACT UNG…UNE). */
export interface GroupJson {
  header: SegmentJson;
  /** X12 */
  transactions?: SetJson[];
  /** EDIFACT */
  messages?: SetJson[];
  trailer: SegmentJson;
}

export interface EdiJson {
  format: typeof formName;
  standard: EdiJsonStandard;
  delimiters: DelimitersJson;
  /** The EDIFACT service string advice as it came (`UNA:+.? '`), null when there was none (and always for X12). */
  una: string | null;
  /** What came before the interchange: a byte order mark, blank lines. */
  leading: string;
  /** What follows each segment terminator before the next segment: "", "\n" or "\r\n". */
  line_break: string;
  header: SegmentJson;
  /** X12 always; EDIFACT when its messages are grouped (UNG). */
  groups?: GroupJson[];
  /** EDIFACT messages not in groups. */
  messages?: SetJson[];
  trailer: SegmentJson;
  /** What follows the last terminator (a final line break or nothing). */
  trailing: string;
}

/** Why a text or a document could not be translated, with where (segment position from 1, element from 1). */
export class EdiJsonError extends Error {
  constructor(
    message: string,
    readonly where: { segment?: number; tag?: string; element?: number } = {},
  ) {
    super(message);
    this.name = 'EdiJsonError';
  }
}

/** Tags of the envelope segments, per standard. */
export const envelopeTags = {
  x12: { interchange: ['ISA', 'IEA'], group: ['GS', 'GE'], set: ['ST', 'SE'] },
  edifact: { interchange: ['UNB', 'UNZ'], group: ['UNG', 'UNE'], set: ['UNH', 'UNT'] },
} as const;

/** The key a group holds its sets under. */
export const setsKey = (standard: EdiJsonStandard): 'transactions' | 'messages' =>
  standard === 'x12' ? 'transactions' : 'messages';
