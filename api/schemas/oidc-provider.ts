/** Identity providers (docs/api/oidc-providers.md). */
import { z } from 'zod';
import { listSchema, pagingQuery, readOnly, recordName, singleLineText } from './common.js';
import { urlCarriesCredentials } from './url.js';

const scopeList = singleLineText(1000).describe('Space separated scopes');
const autoProvisionRoles = ['', 'viewer', 'operator'] as const;

const writable = {
  display_name: singleLineText(200),
  enabled: z.boolean(),
  issuer_url: singleLineText(2048).describe('Exactly as in the discovery document'),
  client_id: singleLineText(255),
  client_secret: singleLineText(2048).describe('Write-only; never returned'),
  scopes: scopeList,
  api_scopes: scopeList,
  api_audience: singleLineText(2048).describe('Empty means the client id'),
  sign_in: z.boolean(),
  accept_tokens_without_audience: z.boolean(),
  auto_provision_role: z
    .enum(autoProvisionRoles, { error: 'Must be empty, viewer or operator' })
    .describe('Role given to an unknown person at first sign-in; empty refuses them (the default)'),
};

const readOnlyFields = { created_at: readOnly(), updated_at: readOnly() };

/** Every setting of a provider a person writes, the client secret among them. */
export const oidcProviderSettings: readonly string[] = ['name', ...Object.keys(writable)];

export const OidcProviderCreate = z.strictObject({
  name: recordName,
  display_name: writable.display_name.default(''),
  enabled: writable.enabled.default(true),
  issuer_url: writable.issuer_url,
  client_id: writable.client_id.default(''),
  client_secret: writable.client_secret.optional(),
  scopes: writable.scopes.default('openid profile email'),
  api_scopes: writable.api_scopes.default(''),
  api_audience: writable.api_audience.default(''),
  sign_in: writable.sign_in.default(true),
  accept_tokens_without_audience: writable.accept_tokens_without_audience.default(false),
  auto_provision_role: writable.auto_provision_role.default(''),
  id: z.never('Ids are assigned by the server').optional(),
  ...readOnlyFields,
});

export const OidcProviderUpdate = z.strictObject({
  id: z.number().int().optional().describe('When sent, must be the id in the path'),
  name: recordName.optional(),
  display_name: writable.display_name.optional(),
  enabled: writable.enabled.optional(),
  issuer_url: writable.issuer_url.optional(),
  client_id: writable.client_id.optional(),
  client_secret: writable.client_secret.optional(),
  scopes: writable.scopes.optional(),
  api_scopes: writable.api_scopes.optional(),
  api_audience: writable.api_audience.optional(),
  sign_in: writable.sign_in.optional(),
  accept_tokens_without_audience: writable.accept_tokens_without_audience.optional(),
  auto_provision_role: writable.auto_provision_role.optional(),
  ...readOnlyFields,
});

export const OidcProviderRecord = z.object({
  id: z.number().int(),
  name: z.string(),
  display_name: z.string(),
  enabled: z.boolean(),
  issuer_url: z.string(),
  client_id: z.string(),
  scopes: z.string(),
  api_scopes: z.string(),
  api_audience: z.string(),
  sign_in: z.boolean(),
  accept_tokens_without_audience: z.boolean(),
  auto_provision_role: z.enum(autoProvisionRoles),
  created_at: z.string(),
  updated_at: z.string(),
});
export type OidcProviderRecord = z.infer<typeof OidcProviderRecord>;

export const OidcProviderListQuery = z.object({ ...pagingQuery(20) });
export const oidcProviderList = listSchema('oidc_providers', OidcProviderRecord);

/** Splits a space separated scope list. */
export function scopeSet(text: string): string[] {
  return text.split(/\s+/).filter((s) => s !== '');
}

/** True for the loopback names that may use plain http. */
function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127\./.test(host);
}

/** The problem with an issuer URL, or undefined. */
function issuerUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'Must be an absolute https URL';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    return 'Must be an https URL (http only for localhost)';
  }
  if (urlCarriesCredentials(url) || url.search !== '' || url.hash !== '') {
    return 'Must not contain credentials, a query or a fragment';
  }
  return undefined;
}

/** Rules between fields of the stored result (docs/api/oidc-providers.md); `hasSecret` says a secret is or will be stored. */
export function providerProblems(p: {
  issuer_url: string;
  client_id: string;
  scopes: string;
  sign_in: boolean;
  hasSecret: boolean;
}): Record<string, string> {
  const problems: Record<string, string> = {};
  const issuer = issuerUrlProblem(p.issuer_url);
  if (issuer) problems.issuer_url = issuer;
  if (p.sign_in) {
    if (!scopeSet(p.scopes).includes('openid')) problems.scopes = 'Must include openid when sign_in is on';
    if (p.client_id === '') problems.client_id = 'Required when sign_in is on';
    if (!p.hasSecret) problems.client_secret = 'Required when sign_in is on';
  }
  return problems;
}
