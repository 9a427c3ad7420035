/**
 * What a full pass over an interchange found (syntax-check.ts): its groups and transaction
 * sets (messages) with the syntax errors of each, in the codes the acknowledgements report
 * them with, and what an acknowledgement among them acknowledges.
 */
import type { EdiEnvelope } from './envelope.js';
import type { Delimiters } from './syntax.js';

export interface ElementError {
  /** Position of the element in its segment, from 1. */
  position: number;
  /** Position of the component in a composite, when the error is in one. */
  component?: number;
  /** X12 AK4-03/IK4-03 (1 missing, 6 invalid character, …); EDIFACT 0085 (13 missing, 21 invalid character, …). */
  code: string;
  /** The bad value, when there is one to show (X12 AK4-04). */
  data?: string;
}

export interface SegmentError {
  tag: string;
  /** Position of the segment in its transaction set (ST or UNH is 1). */
  position: number;
  /** X12 AK3-04/IK3-04 (1 unrecognized segment id, 8 data element errors); EDIFACT 0085 for UCS. */
  code: string;
  elements: ElementError[];
}

/** What an incoming acknowledgement says about the interchange or group it answers. */
export interface AcknowledgementReading {
  /** X12: AK1-02, the group control number acknowledged. */
  group_control?: string;
  /** EDIFACT: UCI 0020, the interchange control reference acknowledged. */
  interchange_control?: string;
  /** Accepted (X12 AK9 A or E; EDIFACT UCI action 7 or 8) or rejected (AK9 P or R; UCI action 4). */
  accepted: boolean;
}

export interface SetReport {
  type: string;
  control: string;
  /** X12 ST03 (implementation convention), EDIFACT UNH 0052:0054:0051. */
  version: string;
  segment_errors: SegmentError[];
  /** X12 AK5-02…/IK5-02… codes (3 control numbers differ, 4 segment count wrong); EDIFACT 0085 codes for UCM. */
  errors: string[];
  /** Set when the set is itself an acknowledgement (997, 999, CONTRL). */
  acknowledges?: AcknowledgementReading;
}

export interface GroupReport {
  /** X12 GS01 (PO, IN, SH…); EDIFACT UNG 0038, empty without UNG. */
  functional_id: string;
  control: string;
  /** X12 GS08 (004010, 005010X231A1). */
  version: string;
  sets: SetReport[];
  /** X12 AK9-05… codes (3 trailer missing, 4 control numbers differ, 5 set count wrong); EDIFACT 0085. */
  errors: string[];
}

export interface InterchangeReport {
  envelope: EdiEnvelope;
  delimiters: Delimiters;
  groups: GroupReport[];
  /** Interchange-level problems: EDIFACT 0085 codes for the UCI; X12 ones that only a TA1 could tell. */
  errors: string[];
  /** Readable reasons, for the message's history and the operator. */
  notes: string[];
}

export const setAccepted = (s: SetReport): boolean => s.errors.length === 0 && s.segment_errors.length === 0;
