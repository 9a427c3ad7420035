/**
 * People who sign in to the web UI. Managed by the `pier users` command and the web UI;
 * deliberately not in the REST API (spec 1).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { UserSchema, type User } from '../../../storage/entities/user.js';
import type { Caller } from '../../auth/caller.js';
import { inTransaction, type ApiContext } from '../../context.js';
import { conflict, notFound, validationError } from '../../errors.js';
import { recordName } from '../../schemas/common.js';

const audited = { kind: 'user', fields: ['name', 'oidc_issuer', 'oidc_subject', 'enabled'] };

export interface NewUser {
  name: string;
  oidc_issuer?: string;
  oidc_subject?: string;
}

export async function listUsers(em: EntityManager): Promise<User[]> {
  return em.find(UserSchema, {}, { orderBy: { name: 'asc' } });
}

export async function addUser(ctx: ApiContext, caller: Caller, input: NewUser): Promise<User> {
  const problems: Record<string, string> = {};
  const name = recordName.safeParse(input.name);
  if (!name.success) problems.name = name.error.issues[0]?.message ?? 'Invalid name';
  const issuer = input.oidc_issuer ?? '';
  const subject = input.oidc_subject ?? '';
  if ((issuer === '') !== (subject === ''))
    problems._form = 'Give both the OIDC issuer and subject, or neither';
  if (Object.keys(problems).length > 0) throw validationError(problems);
  return inTransaction(ctx, async (em) => {
    if (await em.findOne(UserSchema, { name: input.name })) throw conflict(`User ${input.name} exists`);
    if (issuer && (await em.findOne(UserSchema, { oidc_issuer: issuer, oidc_subject: subject }))) {
      throw conflict('Another user has this OIDC identity');
    }
    const user = em.create(UserSchema, {
      name: input.name,
      oidc_issuer: issuer,
      oidc_subject: subject,
      enabled: true,
    });
    await em.flush();
    await ctx.audit.created(em, caller.actor, audited, user, user);
    return user;
  });
}

export async function setUserEnabled(
  ctx: ApiContext,
  caller: Caller,
  name: string,
  enabled: boolean,
): Promise<User> {
  return inTransaction(ctx, async (em) => {
    const user = await em.findOne(UserSchema, { name });
    if (!user) throw notFound(`User ${name}`);
    if (user.enabled === enabled) return user;
    const before = { ...user };
    user.enabled = enabled;
    await em.flush();
    await ctx.audit.updated(em, caller.actor, audited, user, before, user);
    return user;
  });
}

export async function removeUser(ctx: ApiContext, caller: Caller, name: string): Promise<void> {
  await inTransaction(ctx, async (em) => {
    const user = await em.findOne(UserSchema, { name });
    if (!user) throw notFound(`User ${name}`);
    const before = { ...user };
    em.remove(user);
    await em.flush();
    await ctx.audit.deleted(em, caller.actor, audited, before, before);
  });
}
