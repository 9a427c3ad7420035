/** Service accounts (docs/api/service-accounts.md): local ones hold API tokens, federated ones are identity-provider subjects. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { ServiceAccountSchema, type ServiceAccount } from '../../../storage/entities/service-account.js';
import type { Caller } from '../../auth/caller.js';
import type { ApiContext } from '../../context.js';
import { conflict, notFound, refuseOtherId, validationError } from '../../errors.js';
import { iso, type Page } from '../../schemas/common.js';
import {
  identityProblems,
  type ServiceAccountCreate,
  type ServiceAccountRecord,
  type ServiceAccountUpdate,
} from '../../schemas/service-account.js';
import type { Role } from '../../schemas/role.js';
import { revokeTokensOfAccount } from '../api-tokens/service.js';
import { announceCreated, announceRemoved, changeSignIns } from '../sign-in-changes.js';

const audited = {
  kind: 'service-account',
  fields: ['name', 'description', 'kind', 'enabled', 'role', 'oidc_issuer', 'oidc_subject'],
};

function serviceAccountJson(a: ServiceAccount): ServiceAccountRecord {
  return {
    id: a.id,
    name: a.name,
    description: a.description,
    kind: a.kind,
    enabled: a.enabled,
    role: a.role,
    oidc_issuer: a.oidc_issuer,
    oidc_subject: a.oidc_subject,
    last_used_at: iso(a.last_used_at),
    created_at: iso(a.created_at),
    updated_at: iso(a.updated_at),
  };
}

export async function listServiceAccounts(
  ctx: ApiContext,
  em: EntityManager,
  page: { limit: number; offset: number },
): Promise<Page<ServiceAccountRecord>> {
  await ctx.apiTokens.flushUsage();
  const [rows, total] = await em.findAndCount(
    ServiceAccountSchema,
    {},
    { orderBy: { name: 'asc' }, ...page },
  );
  return { items: rows.map(serviceAccountJson), total, ...page };
}

async function load(em: EntityManager, id: number): Promise<ServiceAccount> {
  const account = await em.findOne(ServiceAccountSchema, { id });
  if (!account) throw notFound('Service account');
  return account;
}

export async function getServiceAccount(ctx: ApiContext, em: EntityManager, id: number) {
  await ctx.apiTokens.flushUsage();
  return serviceAccountJson(await load(em, id));
}

async function refuseTaken(
  em: EntityManager,
  a: { name: string; kind: string; oidc_issuer: string; oidc_subject: string },
  exceptId?: number,
) {
  const except = exceptId ? { id: { $ne: exceptId } } : {};
  if (await em.findOne(ServiceAccountSchema, { name: a.name, ...except })) {
    throw conflict(`Service account ${a.name} exists`, { name: `Service account ${a.name} exists` });
  }
  if (a.kind === 'federated') {
    const same = await em.findOne(ServiceAccountSchema, {
      kind: 'federated',
      oidc_issuer: a.oidc_issuer,
      oidc_subject: a.oidc_subject,
      ...except,
    });
    if (same) {
      throw conflict(`Service account ${same.name} has this identity`, {
        oidc_subject: `Service account ${same.name} has this identity`,
      });
    }
  }
}

export async function createServiceAccount(
  ctx: ApiContext,
  caller: Caller,
  body: Omit<z.output<typeof ServiceAccountCreate>, 'role'> & { role?: Role },
): Promise<ServiceAccountRecord> {
  const problems = identityProblems(body);
  if (Object.keys(problems).length > 0) throw validationError(problems);
  return changeSignIns(ctx, async (em) => {
    await refuseTaken(em, body);
    const account = em.create(ServiceAccountSchema, {
      name: body.name,
      description: body.description,
      kind: body.kind,
      enabled: body.enabled,
      role: body.role ?? 'admin',
      oidc_issuer: body.oidc_issuer,
      oidc_subject: body.oidc_subject,
      last_used_at: null,
    });
    await announceCreated(ctx, em, caller, audited, account, account);
    return serviceAccountJson(account);
  });
}

export async function updateServiceAccount(
  ctx: ApiContext,
  caller: Caller,
  id: number,
  body: z.output<typeof ServiceAccountUpdate>,
): Promise<ServiceAccountRecord> {
  refuseOtherId('service account', body.id, id);
  const updated = await changeSignIns(ctx, async (em) => {
    const account = await load(em, id);
    const fixed: Record<string, string> = {};
    if (body.name !== undefined && body.name !== account.name)
      fixed.name = 'Cannot change the name of a service account';
    if (body.kind !== undefined && body.kind !== account.kind)
      fixed.kind = 'Cannot change the kind of a service account';
    if (Object.keys(fixed).length > 0) throw validationError(fixed);
    const before = { ...account };
    const next = {
      description: body.description ?? account.description,
      enabled: body.enabled ?? account.enabled,
      role: body.role ?? account.role,
      oidc_issuer: body.oidc_issuer ?? account.oidc_issuer,
      oidc_subject: body.oidc_subject ?? account.oidc_subject,
    };
    const problems = identityProblems({ kind: account.kind, ...next });
    if (Object.keys(problems).length > 0) throw validationError(problems);
    await refuseTaken(em, { name: account.name, kind: account.kind, ...next }, id);
    em.assign(account, next);
    if (await ctx.audit.updated(em, caller.actor, audited, account, before, account)) {
      await em.flush();
      await ctx.announceAuthChange(em);
    }
    return serviceAccountJson(account);
  });
  ctx.apiTokens.invalidate();
  return updated;
}

export async function deleteServiceAccount(ctx: ApiContext, caller: Caller, id: number): Promise<void> {
  await changeSignIns(ctx, async (em) => {
    const account = await load(em, id);
    const before = { ...account };
    await revokeTokensOfAccount(ctx, em, caller, account);
    await announceRemoved(ctx, em, caller, audited, account, before);
  });
  ctx.apiTokens.invalidate();
}

/** For the CLI and the token service: a local account by name. */
export async function findAccountByName(em: EntityManager, name: string): Promise<ServiceAccount | null> {
  return em.findOne(ServiceAccountSchema, { name });
}
