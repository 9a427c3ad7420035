/** Organizations and partners (docs/api/parties.md): the same fields for both. */
import { z } from 'zod';
import { listSchema, pagingQuery, readOnly, recordName, singleLineText } from './common.js';

export const PartyCreate = z.strictObject({
  name: recordName,
  display_name: singleLineText(200).optional().describe('Display text; defaults to the name'),
  id: z.never('Ids are assigned by the server').optional(),
  created_at: readOnly(),
  updated_at: readOnly(),
});

export const PartyUpdate = z.strictObject({
  id: z.number().int().optional().describe('When sent, must be the id in the path'),
  name: recordName.optional(),
  display_name: singleLineText(200).optional(),
  created_at: readOnly(),
  updated_at: readOnly(),
});

export const PartyRecord = z.object({
  id: z.number().int(),
  name: z.string(),
  display_name: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type PartyRecord = z.infer<typeof PartyRecord>;

export const PartyListQuery = z.object({
  ...pagingQuery(20),
  q: singleLineText(200).optional().describe('Text in name or display name, case-insensitive'),
});

export const organizationList = listSchema('organizations', PartyRecord);
export const partnerList = listSchema('partners', PartyRecord);
