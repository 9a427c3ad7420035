/**
 * Identity providers (docs/api/oidc-providers.md). The client secret is sealed at rest, never returned, and
 * audited as changed without values. Every change is announced on the auth channel, so each
 * process uses it from the next sign-in and the next token.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { OidcProviderSchema, type OidcProvider } from '../../../storage/entities/identity.js';
import type { Caller } from '../../auth/caller.js';
import { freshEm, type ApiContext } from '../../context.js';
import { conflict, notFound, refuseOtherId, validationError } from '../../errors.js';
import { iso, type Page } from '../../schemas/common.js';
import { announceCreated, announceRemoved, changeSignIns } from '../sign-in-changes.js';
import {
  oidcProviderSettings,
  providerProblems,
  type OidcProviderCreate,
  type OidcProviderRecord,
  type OidcProviderUpdate,
} from '../../schemas/oidc-provider.js';

/** The audit log names the secret by its API name and records only that it changed. */
const audited = { kind: 'oidc-provider', fields: oidcProviderSettings, secrets: ['client_secret'] };

/** A record as the audit log compares it: the sealed secret stands for the secret ('' as none). */
function auditValues(p: OidcProvider): Record<string, unknown> {
  return { ...p, client_secret: p.client_secret_sealed === '' ? undefined : p.client_secret_sealed };
}

function oidcProviderJson(p: OidcProvider): OidcProviderRecord {
  return {
    id: p.id,
    name: p.name,
    display_name: p.display_name,
    enabled: p.enabled,
    issuer_url: p.issuer_url,
    client_id: p.client_id,
    scopes: p.scopes,
    api_scopes: p.api_scopes,
    api_audience: p.api_audience,
    sign_in: p.sign_in,
    accept_tokens_without_audience: p.accept_tokens_without_audience,
    auto_provision_role: p.auto_provision_role,
    created_at: iso(p.created_at),
    updated_at: iso(p.updated_at),
  };
}

export async function listOidcProviders(
  em: EntityManager,
  page: { limit: number; offset: number },
): Promise<Page<OidcProviderRecord>> {
  const [rows, total] = await em.findAndCount(OidcProviderSchema, {}, { orderBy: { name: 'asc' }, ...page });
  return { items: rows.map(oidcProviderJson), total, ...page };
}

async function load(em: EntityManager, id: number): Promise<OidcProvider> {
  const provider = await em.findOne(OidcProviderSchema, { id });
  if (!provider) throw notFound('Identity provider');
  return provider;
}

export async function getOidcProvider(ctx: ApiContext, id: number): Promise<OidcProviderRecord> {
  return oidcProviderJson(await load(freshEm(ctx), id));
}

async function refuseTaken(em: EntityManager, p: { name: string; issuer_url: string }, exceptId?: number) {
  const except = exceptId ? { id: { $ne: exceptId } } : {};
  if (await em.findOne(OidcProviderSchema, { name: p.name, ...except })) {
    throw conflict(`Identity provider ${p.name} exists`, { name: `Identity provider ${p.name} exists` });
  }
  const same = await em.findOne(OidcProviderSchema, { issuer_url: p.issuer_url, ...except });
  if (same) {
    throw conflict(`Identity provider ${same.name} has this issuer URL`, {
      issuer_url: `Identity provider ${same.name} has this issuer URL`,
    });
  }
}

export async function createOidcProvider(
  ctx: ApiContext,
  caller: Caller,
  body: z.output<typeof OidcProviderCreate>,
): Promise<OidcProviderRecord> {
  const secret = body.client_secret ?? '';
  const problems = providerProblems({ ...body, hasSecret: secret !== '' });
  if (Object.keys(problems).length > 0) throw validationError(problems);
  return changeSignIns(ctx, async (em) => {
    await refuseTaken(em, body);
    const provider = em.create(OidcProviderSchema, {
      name: body.name,
      display_name: body.display_name,
      enabled: body.enabled,
      issuer_url: body.issuer_url,
      client_id: body.client_id,
      client_secret_sealed: secret === '' ? '' : ctx.secrets.seal(secret),
      scopes: body.scopes,
      api_scopes: body.api_scopes,
      api_audience: body.api_audience,
      sign_in: body.sign_in,
      accept_tokens_without_audience: body.accept_tokens_without_audience,
      auto_provision_role: body.auto_provision_role,
    });
    await announceCreated(ctx, em, caller, audited, provider, auditValues(provider));
    return oidcProviderJson(provider);
  });
}

export async function updateOidcProvider(
  ctx: ApiContext,
  caller: Caller,
  id: number,
  body: z.output<typeof OidcProviderUpdate>,
): Promise<OidcProviderRecord> {
  refuseOtherId('identity provider', body.id, id);
  return changeSignIns(ctx, async (em) => {
    const provider = await load(em, id);
    if (body.name !== undefined && body.name !== provider.name) {
      throw validationError({
        name: 'Cannot change the name of an identity provider (it is in the redirect URI)',
      });
    }
    const before = auditValues(provider);
    const issuerChanged = body.issuer_url !== undefined && body.issuer_url !== provider.issuer_url;
    // A stored secret belongs to the issuer it was entered for (docs/api/conventions.md#write-only-values).
    if (issuerChanged && body.client_secret === undefined && provider.client_secret_sealed !== '') {
      throw validationError({ client_secret: 'Send the client secret again when issuer_url changes' });
    }
    const next = {
      display_name: body.display_name ?? provider.display_name,
      enabled: body.enabled ?? provider.enabled,
      issuer_url: body.issuer_url ?? provider.issuer_url,
      client_id: body.client_id ?? provider.client_id,
      scopes: body.scopes ?? provider.scopes,
      api_scopes: body.api_scopes ?? provider.api_scopes,
      api_audience: body.api_audience ?? provider.api_audience,
      sign_in: body.sign_in ?? provider.sign_in,
      accept_tokens_without_audience:
        body.accept_tokens_without_audience ?? provider.accept_tokens_without_audience,
      auto_provision_role: body.auto_provision_role ?? provider.auto_provision_role,
    };
    const hasSecret =
      body.client_secret !== undefined ? body.client_secret !== '' : provider.client_secret_sealed !== '';
    const problems = providerProblems({ ...next, hasSecret });
    if (issuerChanged && next.sign_in && body.client_secret === undefined) {
      problems.client_secret = 'Send the client secret again when issuer_url changes';
    }
    if (Object.keys(problems).length > 0) throw validationError(problems);
    await refuseTaken(em, { name: provider.name, issuer_url: next.issuer_url }, id);
    em.assign(provider, next);
    if (body.client_secret !== undefined) {
      // Sealing twice gives different text, so compare the plain values to see a real change.
      const old =
        provider.client_secret_sealed === '' ? '' : ctx.secrets.openText(provider.client_secret_sealed);
      if (old !== body.client_secret) {
        provider.client_secret_sealed = body.client_secret === '' ? '' : ctx.secrets.seal(body.client_secret);
      }
    }
    if (await ctx.audit.updated(em, caller.actor, audited, provider, before, auditValues(provider))) {
      await em.flush();
      await ctx.announceAuthChange(em);
    }
    return oidcProviderJson(provider);
  });
}

export async function deleteOidcProvider(ctx: ApiContext, caller: Caller, id: number): Promise<void> {
  await changeSignIns(ctx, async (em) => {
    const provider = await load(em, id);
    await announceRemoved(ctx, em, caller, audited, provider, auditValues(provider));
  });
}
