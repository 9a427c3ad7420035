/** Routes (docs/api/routes.md): from a source instance, between two parties (or any), to a target instance. */
import { z } from 'zod';
import { listSchema, pagingQuery, readOnly, recordName } from './common.js';

export const anyParty = '*';
/** A route's document type that matches every payload. */
export const anyDocument = '*';

const partyOrAny = z
  .string()
  .regex(/^(\*|[a-z0-9_-]{1,64})$/, 'Must be a party name or * for any')
  .describe('Party name, or * for any');

/**
 * An X12 transaction set id (850, 856, 810, 997) or an EDIFACT message type (ORDERS, DESADV,
 * INVOIC, CONTRL) that the envelope of the payload must name, or `*` for any payload, EDI or not.
 */
const documentType = z
  .string()
  .regex(
    /^(\*|[0-9]{3}|[A-Z]{6})$/,
    'Must be * for any, an X12 transaction set id such as 850, or an EDIFACT message type such as ORDERS',
  )
  .describe(
    'X12 transaction set id (850, 856, 810…) or EDIFACT message type (ORDERS, DESADV, INVOIC…) the payload must be; * for any',
  );

export const RouteCreate = z.strictObject({
  name: recordName.optional().describe('Defaults to a name made from the other fields'),
  source_plugin: recordName.describe('Name of the source plugin instance'),
  from: partyOrAny,
  to: partyOrAny,
  document_type: documentType.default('*'),
  target_plugin: recordName.describe('Name of the target plugin instance'),
  id: z.never('Ids are assigned by the server').optional(),
  created_at: readOnly(),
  updated_at: readOnly(),
});

export const RouteUpdate = z.strictObject({
  id: z.number().int().optional().describe('When sent, must be the id in the path'),
  name: recordName.optional(),
  source_plugin: recordName.optional(),
  from: partyOrAny.optional(),
  to: partyOrAny.optional(),
  document_type: documentType.optional(),
  target_plugin: recordName.optional(),
  created_at: readOnly(),
  updated_at: readOnly(),
});

export const RouteRecord = z.object({
  id: z.number().int(),
  name: z.string(),
  source_plugin: z.string(),
  from: z.string(),
  to: z.string(),
  document_type: z.string(),
  target_plugin: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type RouteRecord = z.infer<typeof RouteRecord>;

export const RouteListQuery = z.object({ ...pagingQuery(20) });
export const routeList = listSchema('routes', RouteRecord);
