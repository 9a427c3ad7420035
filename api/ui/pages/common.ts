/** What every page module shares: the request's context, sending pages, calling the API, tables. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiContext } from '../../context.js';
import type { ApiError } from '../../errors.js';
import type { HttpMethod } from '../../http/router.js';
import type { ApiCall, ApiOutcome, ApiRoutes } from '../call-api.js';
import { resolveUiUser } from '../current-user.js';
import { secureCookies } from '../../ui-session/session.js';
import { html, href, type Html } from '../html.js';
import { layout, type NavItem, type PageOptions, type UiRequestContext } from '../layout.js';
import { csrfToken } from '../security.js';

export interface UiDeps {
  ctx: ApiContext;
  api: ApiRoutes;
  sections: NavItem[];
  /** The event stream pages subscribe to, when this process has one. */
  events?: string | undefined;
  /** Write-only values of refused forms, kept for the next submission. */
  kept: KeptSecrets;
}

import type { KeptSecrets } from '../kept-secrets.js';

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

/** Runs an API route for the current user (see call-api.ts). */
export function callApi<T = unknown>(
  deps: UiDeps,
  ui: UiRequestContext,
  request: FastifyRequest,
  reply: FastifyReply,
  method: HttpMethod,
  url: string,
  input: ApiCall = {},
): Promise<ApiOutcome<T>> {
  return deps.api.call<T>(method, url, input, ui.user.caller, request, reply);
}

/** An API answer the page cannot do without: a refusal becomes the error page. */
export async function mustCall<T = unknown>(...args: Parameters<typeof callApi>): Promise<T> {
  const outcome = await callApi<T>(...args);
  if (!outcome.ok) throw outcome.error;
  return outcome.data;
}

/** A refusal in words: status, code and message, as the API answered. */
export function refusal(error: ApiError): Html {
  return html`<strong>${error.status} ${error.code}</strong>: ${error.message}${detailsList(error)}`;
}

function detailsList(error: ApiError): Html | string {
  if (!error.details || error.code === 'INVALID_INPUT') return '';
  const entries = Object.entries(error.details);
  if (entries.length === 0) return '';
  return html`<ul class="details">
    ${entries.map(([k, v]) => html`<li><strong>${k}</strong>: ${typeof v === 'string' ? v : JSON.stringify(v)}</li>`)}
  </ul>`;
}

export interface Column<T> {
  label: string;
  cell(row: T): Html | string | number | null | undefined;
}

export function table<T>(
  caption: string,
  columns: Column<T>[],
  rows: readonly T[],
  empty = 'Nothing here yet.',
): Html {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  // Focusable so a keyboard can scroll a wide table; a named group, not a landmark region, because
  // the section around it is already the landmark and often has the same name (axe landmark-unique).
  return html`<div class="table-wrap" tabindex="0" role="group" aria-label="${caption}">
    <table>
      <caption class="visually-hidden">
        ${caption}
      </caption>
      <thead>
        <tr>
          ${columns.map((c) => html`<th scope="col">${c.label}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (r) =>
            html`<tr>
              ${columns.map((c) => html`<td>${c.cell(r)}</td>`)}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

export interface PageInfo {
  total: number;
  limit: number;
  offset: number;
  /** The total is the planner's estimate (the messages list beyond its exact count). */
  totalEstimated?: boolean;
}

export function pager(path: string, query: Record<string, string | undefined>, page: PageInfo): Html {
  const { total, limit, offset } = page;
  const from = total === 0 ? 0 : offset + 1;
  const to = Math.min(offset + limit, total);
  const prev = offset > 0 ? href(path, { ...query, offset: String(Math.max(0, offset - limit)) }) : undefined;
  const next = offset + limit < total ? href(path, { ...query, offset: String(offset + limit) }) : undefined;
  const of = page.totalEstimated ? `about ${total.toLocaleString('en')}` : String(total);
  return html`<nav class="pager" aria-label="Pages">
    <span>${from}–${to} of ${of}</span>
    ${prev ? html`<a href="${prev}" rel="prev">Previous</a>` : ''}
    ${next ? html`<a href="${next}" rel="next">Next</a>` : ''}
  </nav>`;
}

/** A date as the operator reads it: UTC, to the second. */
export function when(value: string | null | undefined): Html | string {
  if (!value) return '—';
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return value;
  return html`<time datetime="${value}">${d.toISOString().replace('T', ' ').slice(0, 19)}</time>`;
}

export function badge(text: string, tone?: string): Html {
  return html`<span class="badge badge-${tone ?? text.toLowerCase()}">${text}</span>`;
}

export function facts(entries: [string, Html | string | number | boolean | null | undefined][]): Html {
  return html`<dl class="facts">
    ${entries.map(
      ([k, v]) =>
        html`<dt>${k}</dt>
          <dd>
            ${v === null || v === undefined || v === '' ? '—' : typeof v === 'boolean' ? (v ? 'yes' : 'no') : v}
          </dd>`,
    )}
  </dl>`;
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
