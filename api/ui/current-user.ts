/**
 * The one place that says who is using the web UI. The developer build (`pier serve --dev`)
 * serves it as the user `developer`; a release build as the person of the session cookie that
 * sign-in (api/ui-session/) set. The session is looked up once per request, before the page
 * runs (`loadUiUser`, a hook of the UI plugin); pages and form handlers only ever ask
 * `resolveUiUser`, and what they may do is the role's, checked by the API routes they run.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bindCaller } from '../http/request-log.js';
import { developerCaller, type Caller } from '../auth/caller.js';
import type { ApiContext } from '../context.js';
import type { Role } from '../schemas/role.js';
import { getSessionUser } from '../ui-session/session.js';

export interface UiUser {
  caller: Caller;
  /** Shown in the header. */
  displayName: string;
  role: Role;
  /** A signed-in person (who can sign out), as opposed to the developer build's user. */
  session: boolean;
}

/** Where sign-in and sign-out are served (api/ui-session/routes.ts). */
export const signInPath = '/ui/auth/';
export const signOutPath = '/ui/auth/logout';

const developer: UiUser = {
  caller: developerCaller,
  displayName: 'developer',
  role: 'admin',
  session: false,
};
const signedIn = new WeakMap<FastifyRequest, UiUser>();

/** Finds the request's signed-in user, if any; the UI plugin runs this before every page. */
export async function loadUiUser(
  ctx: ApiContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  // The request's log lines name the user, as an API request's do.
  if (ctx.developerBuild) return bindCaller(request, reply, developer.caller);
  const user = await getSessionUser(ctx, request);
  if (!user) return;
  const uiUser: UiUser = {
    caller: { kind: 'user', actor: user.name, role: user.role },
    displayName: user.name,
    role: user.role,
    session: true,
  };
  signedIn.set(request, uiUser);
  bindCaller(request, reply, uiUser.caller);
}

/** Returns the user, or undefined when nobody is signed in (the page sends them to sign in). */
export function resolveUiUser(ctx: ApiContext, request: FastifyRequest): UiUser | undefined {
  if (ctx.developerBuild) return developer;
  return signedIn.get(request);
}
