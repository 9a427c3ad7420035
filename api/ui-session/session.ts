/**
 * Web UI sessions: the server-side API the web UI builds on.
 *
 * - `getSessionUser(ctx, request)`: the signed-in user, or undefined.
 * - `requireRole(ctx, request, role)`: the user, or throws 401 (no session) / 403 INSUFFICIENT_ROLE.
 *
 * A session is a random cookie value whose SHA-256 is a row of ui_session. Every check reads the
 * database, so signing out, disabling the user or expiry count at once in every process. The
 * cookie is HttpOnly, SameSite=Lax, Secure when PUBLIC_URL is https, replaced at each sign-in, and
 * ends after 30 minutes without use or 12 hours after sign-in, whichever comes first. It is never
 * a credential on /api/v1 (docs/api/authentication.md): the API reads only the Authorization header.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  createSession,
  deleteSession,
  sessionUser,
  touchSession,
} from '../../storage/repositories/ui-sessions.js';
import type { ApiContext } from '../context.js';
import { ApiError } from '../errors.js';
import { roleAllows, type Role } from '../schemas/role.js';
import { readCookie, setCookie } from './cookies.js';
import { limits } from '../../limits/limits.js';

const sessionCookie = 'pier_session';

export interface SessionUser {
  id: number;
  name: string;
  role: Role;
}

function hashOf(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function secureCookies(ctx: ApiContext): boolean {
  return ctx.options.publicUrl.startsWith('https:');
}

export async function getSessionUser(
  ctx: ApiContext,
  request: FastifyRequest,
): Promise<SessionUser | undefined> {
  const value = readCookie(request, sessionCookie);
  if (!value) return undefined;
  const row = await sessionUser(ctx.orm.em, hashOf(value), {
    idleSeconds: limits.sessionIdleSeconds,
    touchSeconds: limits.sessionTouchEverySeconds,
  });
  if (!row) return undefined;
  if (row.stale) await touchSession(ctx.orm.em, hashOf(value));
  // Roles are stored as the API's role names (checked when written).
  return { id: row.id, name: row.name, role: row.role as Role };
}

/** The signed-in user with at least `role`; 401 without a session, 403 INSUFFICIENT_ROLE below it. */
export async function requireRole(
  ctx: ApiContext,
  request: FastifyRequest,
  role: Role,
): Promise<SessionUser> {
  const user = await getSessionUser(ctx, request);
  if (!user) throw new ApiError('INVALID_TOKEN', 'Sign in first');
  if (!roleAllows(user.role, role)) {
    throw new ApiError(
      'INSUFFICIENT_ROLE',
      `This needs the role ${role}; ${user.name} has the role ${user.role}`,
      {
        role: user.role,
        required: role,
      },
    );
  }
  return user;
}

/** Starts a session for the user, ending the one the browser had (a fresh value at every sign-in). */
export async function startSession(
  ctx: ApiContext,
  request: FastifyRequest,
  reply: FastifyReply,
  userId: number,
): Promise<void> {
  const old = readCookie(request, sessionCookie);
  if (old) await deleteSession(ctx.orm.em, hashOf(old));
  const value = randomBytes(32).toString('base64url');
  await createSession(ctx.orm.em, hashOf(value), userId, {
    lifetimeSeconds: limits.sessionAbsoluteSeconds,
    idleSeconds: limits.sessionIdleSeconds,
  });
  setCookie(reply, sessionCookie, value, { path: '/', secure: secureCookies(ctx) });
}

/** Ends the browser's session (sign-out). */
export async function endSession(
  ctx: ApiContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const value = readCookie(request, sessionCookie);
  if (value) await deleteSession(ctx.orm.em, hashOf(value));
  setCookie(reply, sessionCookie, '', { path: '/', maxAge: 0, secure: secureCookies(ctx) });
}
