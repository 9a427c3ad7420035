/** A page's request: who asks (the context and CSRF token), calling the API as them, the query and form, sending the page. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiContext } from '../../context.js';
import type { HttpMethod } from '../../http/router.js';
import type { AnswerOf } from '../api-answers.js';
import type { ApiCall, ApiOutcome, ApiRoutes } from '../call-api.js';
import { resolveUiUser } from '../current-user.js';
import { secureCookies } from '../../ui-session/session.js';
import { layout, type NavItem, type PageOptions, type UiRequestContext } from '../layout.js';
import { csrfToken } from '../security.js';
import type { KeptSecrets } from '../kept-secrets.js';

export interface UiDeps {
  ctx: ApiContext;
  api: ApiRoutes;
  sections: NavItem[];
  /** The event stream pages subscribe to, when this process has one. */
  events?: string | undefined;
  /** Write-only values of refused forms, kept for the next submission. */
  kept: KeptSecrets;
}

export class NotSignedIn extends Error {}

export function uiContext(deps: UiDeps, request: FastifyRequest, reply: FastifyReply): UiRequestContext {
  const user = resolveUiUser(deps.ctx, request);
  if (!user) throw new NotSignedIn('Sign in to use the web UI');
  return {
    user,
    csrf: csrfToken(request, reply, secureCookies(deps.ctx)),
    path: request.url.split('?')[0] ?? '',
    sections: deps.sections,
    events: deps.events,
  };
}

export function sendPage(reply: FastifyReply, ui: UiRequestContext, page: PageOptions, status = 200) {
  return reply.code(status).type('text/html; charset=utf-8').send(layout(ui, page));
}

/**
 * Runs an API route for the current user (see call-api.ts). Its answer is typed by the route's
 * response schema (api/ui/api-answers.ts): `GET /messages/:id` answers a message record.
 */
export function callApi<M extends HttpMethod, U extends string>(
  deps: UiDeps,
  ui: UiRequestContext,
  request: FastifyRequest,
  reply: FastifyReply,
  method: M,
  url: U,
  input?: ApiCall,
): Promise<ApiOutcome<AnswerOf<M, U>>>;
export function callApi(
  deps: UiDeps,
  ui: UiRequestContext,
  request: FastifyRequest,
  reply: FastifyReply,
  method: HttpMethod,
  url: string,
  input: ApiCall = {},
): Promise<ApiOutcome<unknown>> {
  return deps.api.call(method, url, input, ui.user.caller, request, reply);
}

/** An API answer the page cannot do without: a refusal becomes the error page. */
export async function mustCall<M extends HttpMethod, U extends string>(
  ...call: Parameters<typeof callApi<M, U>>
): Promise<AnswerOf<M, U>> {
  const outcome = await callApi(...call);
  if (!outcome.ok) throw outcome.error;
  return outcome.data;
}

/** The query string of a request as plain text values (the API's list schemas read them). */
export function queryOf(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
    if (typeof v === 'string' && v !== '') out[k] = v;
  }
  return out;
}

export function bodyFields(request: FastifyRequest): Record<string, string | string[]> {
  const body = request.body;
  return body && typeof body === 'object' ? (body as Record<string, string | string[]>) : {};
}

/** The POST-redirect-GET answer after a successful change. */
export function seeOther(reply: FastifyReply, location: string) {
  return reply.code(303).header('Location', location).send();
}
