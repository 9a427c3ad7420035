/**
 * Organizations and partners (docs/api/parties.md): the same fields for both, plus the interchange ids
 * each goes by in EDI envelopes, and, for partners, the functional acknowledgements exchanged
 * with them (docs/partner-setup.md, "EDI routing and acknowledgements").
 */
import { z } from 'zod';
import { EdiEnvelopeSettings } from './edi-envelope.js';
import { listSchema, pagingQuery, readOnly, recordName, singleLineText } from './common.js';

/** Starts with a character that is neither a space nor a control character, and ends with no space. */
// eslint-disable-next-line no-control-regex
const paddedOrControl = /^[^\s\u0000-\u001f\u007f](.*[^\s])?$/;

/** One id in an envelope: X12 ISA05/ISA06 (or ISA07/ISA08), EDIFACT UNB 0004:0007 (or 0010:0007). */
export const InterchangeId = z.strictObject({
  qualifier: z
    .string()
    .regex(
      /^[A-Za-z0-9]{0,4}$/,
      'Use up to 4 letters or digits (ZZ, 01, 14, ZZZ), or empty for any qualifier',
    )
    .default('')
    .describe('X12 ISA05/ISA07 or EDIFACT 0007 qualifier; empty matches any'),
  id: z
    .string()
    .min(1, 'Must not be empty')
    .max(35, 'Use at most 35 characters (X12 allows 15, EDIFACT 35)')
    .regex(paddedOrControl, 'Must not start or end with a space or contain control characters')
    .describe('X12 ISA06/ISA08 or EDIFACT UNB sender or recipient id, without padding'),
});
export type InterchangeId = z.infer<typeof InterchangeId>;

const interchangeIds = z
  .array(InterchangeId)
  .max(20, 'At most 20 interchange ids per party')
  .refine(
    (ids) => new Set(ids.map((i) => `${i.qualifier}:${i.id}`)).size === ids.length,
    'Each interchange id may be listed once',
  )
  .describe(
    'Ids the party goes by in X12 and EDIFACT envelopes, as {qualifier, id}; a received interchange is routed from and to the parties its ids name',
  );

export const x12Acknowledgements = ['none', '997', '999'] as const;
export const edifactAcknowledgements = ['none', 'contrl'] as const;

/** The partner-only properties: which acknowledgement pier sends, and how long it waits for theirs. */
const partnerFields = {
  x12_acknowledgement: z
    .enum(x12Acknowledgements)
    .describe('Acknowledgement pier sends back for each X12 interchange from this partner: none, 997 or 999'),
  edifact_acknowledgement: z
    .enum(edifactAcknowledgements)
    .describe(
      'Acknowledgement pier sends back for each EDIFACT interchange from this partner: none or contrl',
    ),
  acknowledgement_due_hours: z
    .number()
    .int('Must be a whole number')
    .min(0, 'Must be 0 to 720')
    .max(720, 'Must be 0 to 720')
    .describe('Hours within which the partner must acknowledge an interchange pier sent; 0 expects none'),
  speaks_for: z
    .array(recordName)
    .max(100, 'At most 100 partners')
    .refine((names) => new Set(names).size === names.length, 'Each partner may be listed once')
    .describe(
      'Partners this partner may send interchanges for (a hub or a VAN): an interchange whose envelope names another partner as its sender is refused unless that partner is listed here',
    ),
  edi_envelope: EdiEnvelopeSettings,
};

export const PartyCreate = z.strictObject({
  name: recordName,
  display_name: singleLineText(200).optional().describe('Display text; defaults to the name'),
  interchange_ids: interchangeIds.default([]),
  id: z.never('Ids are assigned by the server').optional(),
  created_at: readOnly(),
  updated_at: readOnly(),
});

export const PartyUpdate = z.strictObject({
  id: z.number().int().optional().describe('When sent, must be the id in the path'),
  name: recordName.optional(),
  display_name: singleLineText(200).optional(),
  interchange_ids: interchangeIds.optional(),
  created_at: readOnly(),
  updated_at: readOnly(),
});

export const PartnerCreate = PartyCreate.extend({
  x12_acknowledgement: partnerFields.x12_acknowledgement.default('none'),
  edifact_acknowledgement: partnerFields.edifact_acknowledgement.default('none'),
  acknowledgement_due_hours: partnerFields.acknowledgement_due_hours.default(0),
  speaks_for: partnerFields.speaks_for.default([]),
  edi_envelope: partnerFields.edi_envelope.prefault({}),
});

export const PartnerUpdate = PartyUpdate.extend({
  x12_acknowledgement: partnerFields.x12_acknowledgement.optional(),
  edifact_acknowledgement: partnerFields.edifact_acknowledgement.optional(),
  acknowledgement_due_hours: partnerFields.acknowledgement_due_hours.optional(),
  speaks_for: partnerFields.speaks_for.optional(),
  edi_envelope: partnerFields.edi_envelope.optional(),
});

export const PartyRecord = z.object({
  id: z.number().int(),
  name: z.string(),
  display_name: z.string(),
  interchange_ids: z.array(z.object({ qualifier: z.string(), id: z.string() })),
  created_at: z.string(),
  updated_at: z.string(),
});
export type PartyRecord = z.infer<typeof PartyRecord>;

export const PartnerRecord = PartyRecord.extend({
  x12_acknowledgement: z.enum(x12Acknowledgements),
  edifact_acknowledgement: z.enum(edifactAcknowledgements),
  acknowledgement_due_hours: z.number().int(),
  speaks_for: z.array(z.string()),
  edi_envelope: EdiEnvelopeSettings,
});
export type PartnerRecord = z.infer<typeof PartnerRecord>;

export const PartyListQuery = z.object({
  ...pagingQuery(20),
  q: singleLineText(200).optional().describe('Text in name or display name, case-insensitive'),
});

export const organizationList = listSchema('organizations', PartyRecord);
export const partnerList = listSchema('partners', PartnerRecord);
