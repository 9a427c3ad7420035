/** Routes (docs/api/routes.md): from a source instance, between two parties (or any), to a target instance. */
import { z } from 'zod';
import { listSchema, pagingQuery, readOnly, recordName } from './common.js';

export const anyParty = '*';

const partyOrAny = z
  .string()
  .regex(/^(\*|[a-z0-9_-]{1,64})$/, 'Must be a party name or * for any')
  .describe('Party name, or * for any');

export const RouteCreate = z.strictObject({
  name: recordName.optional().describe('Defaults to a name made from the other fields'),
  source_plugin: recordName.describe('Name of the source plugin instance'),
  from: partyOrAny,
  to: partyOrAny,
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
  target_plugin: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type RouteRecord = z.infer<typeof RouteRecord>;

export const RouteListQuery = z.object({ ...pagingQuery(20) });
export const routeList = listSchema('routes', RouteRecord);
