/** Organizations (the operator's own parties) and partners (business partners): docs/api/parties.md. */
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAt, updatedAt } from './timestamps.js';

/** An id a party goes by in EDI envelopes (X12 ISA06/ISA08, EDIFACT UNB sender and recipient). */
export interface InterchangeIdValue {
  /** X12 ISA05/ISA07 (ZZ, 01, 12…), EDIFACT 0007 (14, ZZZ…); empty matches any qualifier. */
  qualifier: string;
  id: string;
}

const partyProperties = {
  id: p.integer().primary().autoincrement(),
  name: p.string().length(64),
  display_name: p.string().length(200),
  interchange_ids: p.json<InterchangeIdValue[]>().columnType('jsonb'),
  created_at: createdAt(),
  updated_at: updatedAt(),
};

export const OrganizationSchema = defineEntity({
  name: 'Organization',
  tableName: 'organization',
  properties: partyProperties,
});
export type Organization = InferEntity<typeof OrganizationSchema>;

export const PartnerSchema = defineEntity({
  name: 'Partner',
  tableName: 'partner',
  properties: {
    ...partyProperties,
    /** The acknowledgement pier sends for each X12 interchange the partner sends: none, 997 or 999. */
    x12_acknowledgement: p.string().length(8),
    /** The acknowledgement pier sends for each EDIFACT interchange the partner sends: none or contrl. */
    edifact_acknowledgement: p.string().length(8),
    /** Hours pier waits for the partner's acknowledgement of an interchange sent to it; 0: none expected. */
    acknowledgement_due_hours: p.integer(),
    /** Partners this partner may send interchanges for (a hub's, a VAN's); names, empty by default. */
    speaks_for: p.json<string[]>().columnType('jsonb'),
    /** Envelope settings of interchanges pier builds for the partner (api/schemas/edi-envelope.ts); `{}`: the defaults. */
    edi_envelope: p.json<Record<string, unknown>>().columnType('jsonb'),
  },
});
export type Partner = InferEntity<typeof PartnerSchema>;
