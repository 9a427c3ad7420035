/**
 * Which characters an interchange's bytes stand for. X12's character sets are subsets of
 * ASCII, and EDIFACT's syntax identifiers UNOA to UNOK name single-byte sets: those are read as
 * Latin-1, one character per byte, so every byte comes back as it was. UNOW and UNOY (ISO
 * 10646) are read as UTF-8, so a name in any script reads as itself in the JSON form.
 */
import type { TextEncoding } from './events.js';

/** The encoding of an EDIFACT interchange from the head of its text read as Latin-1 (UNA, then UNB). */
export function edifactEncoding(head: string): TextEncoding {
  const unb = head.indexOf('UNB');
  const syntax = unb < 0 ? '' : head.slice(unb + 4, unb + 8);
  return syntax === 'UNOW' || syntax === 'UNOY' ? 'utf-8' : 'latin1';
}

/** The EDIFACT syntax version number (UNB 0002), or 0 when the head does not say. */
export function edifactSyntaxVersion(head: string): number {
  const unb = head.indexOf('UNB');
  if (unb < 0) return 0;
  const digit = head[unb + 9];
  return digit !== undefined && /[0-9]/.test(digit) ? Number(digit) : 0;
}
