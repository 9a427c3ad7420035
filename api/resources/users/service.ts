/**
 * People who sign in to the web UI. Managed by the `pier users` command and the web UI;
 * deliberately not in the REST API (docs/api/README.md). Every change is announced on the auth channel,
 * so a disabled user's tokens and sessions stop working in every process at once.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { UserSchema, type User } from '../../../storage/entities/user.js';
import type { Caller } from '../../auth/caller.js';
import { hashPassword, passwordProblem } from '../../auth/password.js';
import type { ApiContext } from '../../context.js';
import { conflict, notFound, validationError } from '../../errors.js';
import { recordName } from '../../schemas/common.js';
import { Role } from '../../schemas/role.js';
import { announceCreated, announceRemoved, changeSignIns } from '../sign-in-changes.js';

const audited = {
  kind: 'user',
  fields: ['name', 'oidc_issuer', 'oidc_subject', 'enabled', 'role', 'password'],
  secrets: ['password'],
};

/** The audit log names the password, never its hash. */
function auditValues(u: User): Record<string, unknown> {
  return { ...u, password: u.password_hash === '' ? undefined : u.password_hash };
}

export interface NewUser {
  name: string;
  oidc_issuer?: string;
  oidc_subject?: string;
  role?: Role;
}

export async function listUsers(em: EntityManager): Promise<User[]> {
  return em.find(UserSchema, {}, { orderBy: { name: 'asc' } });
}

/** Runs a change of one user, audits it and tells every process. */
async function changeUser(
  ctx: ApiContext,
  caller: Caller,
  name: string,
  change: (user: User) => void,
): Promise<User> {
  return changeSignIns(ctx, async (em) => {
    const user = await em.findOne(UserSchema, { name });
    if (!user) throw notFound(`User ${name}`);
    const before = auditValues(user);
    change(user);
    await em.flush();
    if (await ctx.audit.updated(em, caller.actor, audited, user, before, auditValues(user))) {
      await ctx.announceAuthChange(em);
    }
    return user;
  });
}

export async function addUser(ctx: ApiContext, caller: Caller, input: NewUser): Promise<User> {
  const problems: Record<string, string> = {};
  const name = recordName.safeParse(input.name);
  if (!name.success) problems.name = name.error.issues[0]?.message ?? 'Invalid name';
  const issuer = input.oidc_issuer ?? '';
  const subject = input.oidc_subject ?? '';
  if ((issuer === '') !== (subject === ''))
    problems._form = 'Give both the OIDC issuer and subject, or neither';
  const role = Role.safeParse(input.role ?? 'viewer');
  if (!role.success) problems.role = 'Must be admin, operator or viewer';
  if (Object.keys(problems).length > 0 || !role.success) throw validationError(problems);
  return changeSignIns(ctx, async (em) => {
    if (await em.findOne(UserSchema, { name: input.name })) throw conflict(`User ${input.name} exists`);
    if (issuer && (await em.findOne(UserSchema, { oidc_issuer: issuer, oidc_subject: subject }))) {
      throw conflict('Another user has this OIDC identity');
    }
    const user = em.create(UserSchema, {
      name: input.name,
      oidc_issuer: issuer,
      oidc_subject: subject,
      enabled: true,
      role: role.data,
      password_hash: '',
      last_sign_in_at: null,
    });
    await announceCreated(ctx, em, caller, audited, user, auditValues(user));
    return user;
  });
}

export async function setUserEnabled(
  ctx: ApiContext,
  caller: Caller,
  name: string,
  enabled: boolean,
): Promise<User> {
  return changeUser(ctx, caller, name, (user) => {
    user.enabled = enabled;
  });
}

export async function setUserRole(
  ctx: ApiContext,
  caller: Caller,
  name: string,
  role: string,
): Promise<User> {
  const parsed = Role.safeParse(role);
  if (!parsed.success) throw validationError({ role: 'Must be admin, operator or viewer' });
  return changeUser(ctx, caller, name, (user) => {
    user.role = parsed.data;
  });
}

/**
 * Sets the local password of a user (`pier users passwd`). A name nobody has yet becomes a
 * local administrator: the way into a new install before any identity provider exists.
 */
export async function setUserPassword(
  ctx: ApiContext,
  caller: Caller,
  name: string,
  password: string,
): Promise<{ user: User; created: boolean }> {
  const problem = passwordProblem(password);
  if (problem) throw validationError({ password: problem });
  const hash = await hashPassword(password);
  const existing = await ctx.orm.em.fork().findOne(UserSchema, { name });
  if (!existing) {
    await addUser(ctx, caller, { name, role: 'admin' });
  }
  const user = await changeUser(ctx, caller, name, (u) => {
    u.password_hash = hash;
  });
  return { user, created: !existing };
}

export async function removeUser(ctx: ApiContext, caller: Caller, name: string): Promise<void> {
  await changeSignIns(ctx, async (em) => {
    const user = await em.findOne(UserSchema, { name });
    if (!user) throw notFound(`User ${name}`);
    await announceRemoved(ctx, em, caller, audited, user, auditValues(user));
  });
}
