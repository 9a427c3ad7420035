/**
 * Changes to who may sign in or call the API (users, identity providers, service accounts): each
 * commits with its audit event and an announcement on the auth channel, so every process drops
 * the tokens and sessions it remembered, and this one drops its verified JWTs at once.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuditedKind, AuditedRecord } from '../audit/recorder.js';
import type { Caller } from '../auth/caller.js';
import { inTransaction, type ApiContext } from '../context.js';

/** Runs `work` in one transaction; once it committed, forgets the JWTs this process verified. */
export async function changeSignIns<T>(ctx: ApiContext, work: (em: EntityManager) => Promise<T>): Promise<T> {
  const done = await inTransaction(ctx, work);
  // A token of this identity may have been refused, or accepted, and remembered a moment ago.
  ctx.jwt.invalidate();
  return done;
}

/** Inside the caller's transaction: writes a new record, audits it with `values` and announces it. */
export async function announceCreated(
  ctx: ApiContext,
  em: EntityManager,
  caller: Caller,
  audited: AuditedKind,
  record: AuditedRecord,
  values: Record<string, unknown>,
): Promise<void> {
  await em.flush();
  await ctx.audit.created(em, caller.actor, audited, record, values);
  await ctx.announceAuthChange(em);
}

/** Inside the caller's transaction: removes a record, audits it with the values it had and announces it. */
export async function announceRemoved(
  ctx: ApiContext,
  em: EntityManager,
  caller: Caller,
  audited: AuditedKind,
  record: AuditedRecord,
  before: Record<string, unknown>,
): Promise<void> {
  // Named before removal: the log names the record as it was.
  const named = { id: record.id, name: record.name };
  em.remove(record);
  await em.flush();
  await ctx.audit.deleted(em, caller.actor, audited, named, before);
  await ctx.announceAuthChange(em);
}
