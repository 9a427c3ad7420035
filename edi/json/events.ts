/**
 * The walk through an interchange that every translation shares: the reader of EDI text, the
 * reader of the JSON form and the walk over a document in memory produce these events, in the
 * order of the segments; the writers of EDI, of JSON text and of a document consume them. So
 * each direction streams segment by segment and holds no more than one segment.
 */
import type { DelimitersJson, EdiJsonStandard, SegmentJson } from './form.js';

export type TextEncoding = 'latin1' | 'utf-8';

export interface StartEvent {
  type: 'start';
  standard: EdiJsonStandard;
  delimiters: DelimitersJson;
  una: string | null;
  leading: string;
  line_break: string;
}

export type EdiEvent =
  | StartEvent
  | { type: 'interchange'; segment: SegmentJson }
  | { type: 'group'; segment: SegmentJson }
  | { type: 'set'; segment: SegmentJson }
  | { type: 'segment'; segment: SegmentJson }
  | { type: 'set-end'; segment: SegmentJson }
  | { type: 'group-end'; segment: SegmentJson }
  | { type: 'end'; segment: SegmentJson; trailing: string };

/**
 * Receives events one at a time, from a reader's push. A plain segment (plain-segment.ts) read
 * from the JSON form points into the bytes its reader holds, which the next push overwrites: a
 * sink that keeps one keeps a copy of it (`copy`) or of its elements, not the segment itself.
 */
export interface EventSink {
  event(e: EdiEvent): void;
}
