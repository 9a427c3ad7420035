/** API tokens (docs/api/api-tokens.md): made for a local service account, shown once, revoked, never changed. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import {
  ApiTokenSchema,
  ServiceAccountSchema,
  type ApiToken,
  type ServiceAccount,
} from '../../../storage/entities/service-account.js';
import type { Caller } from '../../auth/caller.js';
import { generateToken } from '../../auth/token-format.js';
import { inTransaction, type ApiContext } from '../../context.js';
import { notFound, validationError } from '../../errors.js';
import { iso, type Page } from '../../schemas/common.js';
import type { ApiTokenCreate, ApiTokenRecord } from '../../schemas/api-token.js';

const dayMs = 24 * 60 * 60 * 1000;

function tokenState(t: ApiToken, now: Date): ApiTokenRecord['state'] {
  if (t.revoked_at) return 'revoked';
  return new Date(t.expires_at).getTime() <= now.getTime() ? 'expired' : 'active';
}

function tokenJson(t: ApiToken, accountName: string, now: Date): ApiTokenRecord {
  return {
    id: t.id,
    public_id: t.public_id,
    service_account: accountName,
    label: t.label,
    state: tokenState(t, now),
    created_at: iso(t.created_at),
    expires_at: iso(t.expires_at),
    last_used_at: iso(t.last_used_at),
    revoked_at: iso(t.revoked_at),
  };
}

export async function listApiTokens(
  ctx: ApiContext,
  em: EntityManager,
  page: { limit: number; offset: number },
): Promise<Page<ApiTokenRecord>> {
  await ctx.apiTokens.flushUsage();
  const accounts = await em.find(ServiceAccountSchema, { kind: 'local' });
  const names = new Map(accounts.map((a) => [a.id, a.name]));
  const [rows, total] = await em.findAndCount(
    ApiTokenSchema,
    { service_account_id: { $in: [...names.keys()] } },
    { orderBy: { created_at: 'desc', id: 'desc' }, ...page },
  );
  const now = ctx.now();
  return { items: rows.map((t) => tokenJson(t, names.get(t.service_account_id) ?? '', now)), total, ...page };
}

export async function createApiToken(
  ctx: ApiContext,
  caller: Caller,
  body: z.output<typeof ApiTokenCreate>,
): Promise<ApiTokenRecord & { token: string }> {
  return inTransaction(ctx, async (em) => {
    const account = await em.findOne(ServiceAccountSchema, { name: body.service_account });
    if (!account || account.kind !== 'local') {
      throw validationError({ service_account: `No local service account named ${body.service_account}` });
    }
    const generated = generateToken();
    const token = em.create(ApiTokenSchema, {
      public_id: generated.publicId,
      secret_hash: generated.hash,
      service_account_id: account.id,
      label: body.label,
      expires_at: new Date(ctx.now().getTime() + body.expires_in_days * dayMs),
      last_used_at: null,
      revoked_at: null,
    });
    await em.flush();
    await ctx.audit.record(em, {
      actor: caller.actor,
      action: 'create',
      kind: 'api-token',
      record_id: token.id,
      record_name: `${account.name}/${token.label}`,
      changes: [
        { field: 'service_account', new: account.name },
        { field: 'label', new: token.label },
        { field: 'public_id', new: token.public_id },
        { field: 'expires_at', new: iso(token.expires_at) },
        { field: 'token', secret: true },
      ],
    });
    return { ...tokenJson(token, account.name, ctx.now()), token: generated.value };
  });
}

async function revoke(
  ctx: ApiContext,
  em: EntityManager,
  caller: Caller,
  token: ApiToken,
  accountName: string,
) {
  token.revoked_at = ctx.now();
  await ctx.audit.record(em, {
    actor: caller.actor,
    action: 'revoke',
    kind: 'api-token',
    record_id: token.id,
    record_name: `${accountName}/${token.label}`,
    changes: [{ field: 'revoked_at', old: null, new: iso(token.revoked_at) }],
  });
}

/** DELETE /api-tokens/{id}: moves the token to revoked; revoking twice changes nothing. */
export async function revokeApiToken(ctx: ApiContext, caller: Caller, id: number): Promise<void> {
  // Dropped here as soon as the revocation committed; other processes hear the announcement.
  await inTransaction(ctx, async (em) => {
    const token = await em.findOne(ApiTokenSchema, { id });
    const account = token && (await em.findOne(ServiceAccountSchema, { id: token.service_account_id }));
    if (!token || !account || account.kind !== 'local') throw notFound('API token');
    if (token.revoked_at) return;
    await revoke(ctx, em, caller, token, account.name);
    await em.flush();
    await ctx.announceAuthChange(em);
  });
  ctx.apiTokens.invalidate();
}

/** Revokes every active token of an account, inside the caller's transaction. */
export async function revokeTokensOfAccount(
  ctx: ApiContext,
  em: EntityManager,
  caller: Caller,
  account: ServiceAccount,
): Promise<void> {
  const tokens = await em.find(ApiTokenSchema, { service_account_id: account.id, revoked_at: null });
  for (const token of tokens) await revoke(ctx, em, caller, token, account.name);
  await em.flush();
}
