/**
 * The envelope as a source hands it to the core with the message it offers (core-protocol.ts):
 * checked on the way in like every other field, with lengths the edi_interchange table holds.
 */
import { z } from 'zod';
import type { EdiEnvelope } from './envelope.js';

const field = (max: number) =>
  z
    .string()
    .max(max)
    .refine((v) => !v.includes('\u0000'), 'Must not contain NUL characters');
const party = z.object({ qualifier: field(8), id: field(64) });

export const EdiRecord = z.object({
  standard: z.enum(['x12', 'edifact']),
  version: field(16),
  sender: party,
  receiver: party,
  interchange_control: field(35),
  group_controls: z.array(field(35)).max(100),
  document_types: z.array(field(16)).max(100),
});
export type EdiRecord = z.infer<typeof EdiRecord>;

/** What the envelope reader found, cut to what the record holds (a malformed header may be longer). */
export function ediRecordOf(envelope: EdiEnvelope): EdiRecord {
  const cut = (text: string, max: number) => text.replaceAll('\u0000', '').slice(0, max);
  const partyOf = (p: EdiEnvelope['sender']) => ({ qualifier: cut(p.qualifier, 8), id: cut(p.id, 64) });
  return {
    standard: envelope.standard,
    version: cut(envelope.version, 16),
    sender: partyOf(envelope.sender),
    receiver: partyOf(envelope.receiver),
    interchange_control: cut(envelope.interchange_control, 35),
    group_controls: envelope.group_controls.slice(0, 100).map((c) => cut(c, 35)),
    document_types: envelope.document_types.slice(0, 100).map((t) => cut(t, 16)),
  };
}
