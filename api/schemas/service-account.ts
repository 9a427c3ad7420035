/** Service accounts (docs/api/service-accounts.md). */
import { z } from 'zod';
import { Role } from './role.js';
import { listSchema, multiLineText, pagingQuery, readOnly, recordName, singleLineText } from './common.js';

const accountKinds = ['local', 'federated'] as const;

const issuer = singleLineText(2048);
const subject = singleLineText(255);

export const ServiceAccountCreate = z.strictObject({
  name: recordName,
  description: multiLineText(1000).default(''),
  kind: z.enum(accountKinds).default('local'),
  enabled: z.boolean().default(true),
  role: Role.default('admin').describe('What the account may do: admin, operator or viewer'),
  oidc_issuer: issuer.default(''),
  oidc_subject: subject.default(''),
  id: z.never('Ids are assigned by the server').optional(),
  last_used_at: readOnly(),
  created_at: readOnly(),
  updated_at: readOnly(),
});

export const ServiceAccountUpdate = z.strictObject({
  id: z.number().int().optional().describe('When sent, must be the id in the path'),
  name: recordName.optional().describe('Cannot change; may be sent unchanged'),
  description: multiLineText(1000).optional(),
  kind: z.enum(accountKinds).optional().describe('Cannot change; may be sent unchanged'),
  enabled: z.boolean().optional(),
  role: Role.optional(),
  oidc_issuer: issuer.optional(),
  oidc_subject: subject.optional(),
  last_used_at: readOnly(),
  created_at: readOnly(),
  updated_at: readOnly(),
});

export const ServiceAccountRecord = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string(),
  kind: z.enum(accountKinds),
  enabled: z.boolean(),
  role: Role,
  oidc_issuer: z.string(),
  oidc_subject: z.string(),
  last_used_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ServiceAccountRecord = z.infer<typeof ServiceAccountRecord>;

export const ServiceAccountListQuery = z.object({ ...pagingQuery(20) });
export const serviceAccountList = listSchema('service_accounts', ServiceAccountRecord);

/** Rules between kind and identity fields. */
export function identityProblems(a: { kind: string; oidc_issuer: string; oidc_subject: string }) {
  const problems: Record<string, string> = {};
  if (a.kind === 'local') {
    if (a.oidc_issuer !== '') problems.oidc_issuer = 'Must be empty for a local account';
    if (a.oidc_subject !== '') problems.oidc_subject = 'Must be empty for a local account';
    return problems;
  }
  if (a.oidc_issuer === '') problems.oidc_issuer = 'Required for a federated account';
  else {
    let url: URL | undefined;
    try {
      url = new URL(a.oidc_issuer);
    } catch {
      problems.oidc_issuer = 'Must be the issuer URL of an identity provider';
    }
    if (url && url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
      problems.oidc_issuer = 'Must be an https URL (http only for localhost)';
    }
  }
  if (a.oidc_subject.trim() === '') problems.oidc_subject = 'Required for a federated account';
  return problems;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127\./.test(host);
}
