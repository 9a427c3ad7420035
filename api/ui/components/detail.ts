/**
 * The detail page's parts: the way back to the list, a titled section, and the buttons that act
 * on the record (each its own POST form with the CSRF token; a dangerous one drawn apart).
 */
import type { FastifyInstance } from 'fastify';
import { csrfInput } from '../form.js';
import type { UiDeps } from './request-context.js';
import { openPage, type Answer, type PageRequest, type PathOf } from './page-frame.js';
import { refused } from './refusal-summary.js';
import { html, type Html } from '../html.js';

/** The link back to the list a detail page belongs to. */
export function backLink(path: string, words: string): Html {
  return html`<p><a href="${path}">${words}</a></p>`;
}

/** A section named by its heading (a landmark for screen readers). */
export function section(id: string, heading: string, content: Html | string): Html {
  return html`<section aria-labelledby="${id}-heading">
    <h2 id="${id}-heading">${heading}</h2>
    ${content}
  </section>`;
}

/** One button that posts to an action of the record. */
export function actionButton(
  csrf: string,
  action: string,
  words: string,
  options: { danger?: boolean; fields?: Record<string, string> } = {},
): Html {
  return html`<form method="post" action="${action}" class="${options.danger ? 'danger-zone' : 'actions'}">
    ${csrfInput(csrf)}
    ${Object.entries(options.fields ?? {}).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}" />`)}
    <button type="submit" ${options.danger ? html`class="danger"` : ''}>${words}</button>
  </form>`;
}

/**
 * The delete action of a record's page: POST `<page>/delete` deletes through the API route and
 * goes to `after`; a refusal (409 in use, 404) draws the record's page again with it.
 */
export function registerDelete(
  app: FastifyInstance,
  deps: UiDeps,
  page: string,
  api: string,
  after: string,
  redraw: (p: PageRequest<PathOf<'id'>>, answer: Answer) => Promise<unknown>,
): void {
  app.post<PathOf<'id'>>(`${page}/delete`, async (request, reply) => {
    const p = openPage(deps, request, reply);
    const removed = await p.call('DELETE', api, { params: { id: p.params.id } });
    if (removed.ok) return p.redirect(after);
    return redraw(p, refused(removed.error));
  });
}
