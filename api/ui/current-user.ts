/**
 * The one place that says who is using the web UI. Today only the developer build
 * (`pier serve --dev`) serves the UI, as the user `developer`; the identity issue replaces
 * the body of `resolveUiUser` with its session lookup (cookie → user and role) and the
 * sign-in redirect. Pages and form handlers only ever ask this function.
 */
import type { FastifyRequest } from 'fastify';
import { developerCaller, type Caller } from '../auth/caller.js';
import type { ApiContext } from '../context.js';

export interface UiUser {
  caller: Caller;
  /** Shown in the header. */
  displayName: string;
  /** What the user may do; every signed-in user is an administrator until roles arrive. */
  role: 'administrator';
}

/** Returns the user, or undefined when nobody is signed in (the caller answers 401). */
export function resolveUiUser(ctx: ApiContext, _request: FastifyRequest): UiUser | undefined {
  if (ctx.developerBuild) return { caller: developerCaller, displayName: 'developer', role: 'administrator' };
  return undefined;
}
