/** The audit log (docs/api/audit.md) and its filters (docs/api/conventions.md#lists). */
import { z } from 'zod';
import { listSchema, pagingQuery, singleLineText } from './common.js';
import { timeBound } from './time-filter.js';

export const auditActions = [
  'create',
  'update',
  'delete',
  'revoke',
  'start',
  'stop',
  'restart',
  'redispatch',
  'redeliver',
  'upload',
  'export',
] as const;

/** Unknown parameters are refused on this list (docs/api/conventions.md#lists), hence strictObject. */
export const AuditListQuery = z.strictObject({
  ...pagingQuery(50),
  kind: singleLineText(64).optional(),
  action: z.enum(auditActions).optional(),
  actor: singleLineText(255).optional(),
  record_id: singleLineText(64).optional(),
  record_name: singleLineText(255).optional(),
  from: timeBound('from'),
  to: timeBound('to'),
});

export const AuditChangeSchema = z.object({
  field: z.string(),
  old: z.unknown().optional(),
  new: z.unknown().optional(),
  secret: z.literal(true).optional(),
});

export const AuditEventRecord = z.object({
  v: z.number().int(),
  id: z.number().int(),
  at: z.string(),
  actor: z.string(),
  action: z.string(),
  kind: z.string(),
  record_id: z.string(),
  record_name: z.string(),
  changes: z.array(AuditChangeSchema),
  prev_hash: z.string(),
  hash: z.string(),
  record_gone: z.boolean(),
});

export const auditList = listSchema('events', AuditEventRecord);

export const AuditVerifyResult = z.object({
  ok: z.boolean(),
  events_checked: z.number().int(),
  chained: z.number().int(),
  unchained: z.number().int(),
  head_id: z.number().int().nullable(),
  head_hash: z.string(),
  first_broken_id: z.number().int().optional(),
  reason: z.string().optional(),
});
