/** API tokens (docs/api/api-tokens.md). */
import { z } from 'zod';
import { listSchema, pagingQuery, recordName, singleLineText } from './common.js';

const tokenStates = ['active', 'expired', 'revoked'] as const;

export const ApiTokenCreate = z.strictObject({
  service_account: recordName.describe('Name of a local service account'),
  label: singleLineText(64).min(1),
  expires_in_days: z.number().int('Must be a whole number').min(1).max(365).default(90),
});

export const ApiTokenRecord = z.object({
  id: z.number().int(),
  public_id: z.string(),
  service_account: z.string(),
  label: z.string(),
  state: z.enum(tokenStates),
  created_at: z.string(),
  expires_at: z.string(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});
export type ApiTokenRecord = z.infer<typeof ApiTokenRecord>;

export const ApiTokenCreated = ApiTokenRecord.extend({
  token: z.string().describe('The secret value; shown only in this answer'),
});

export const ApiTokenListQuery = z.object({ ...pagingQuery(20) });
export const apiTokenList = listSchema('api_tokens', ApiTokenRecord);
