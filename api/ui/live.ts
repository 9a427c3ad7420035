/**
 * The one place live updates plug in. A live region names what it shows; the page script
 * (assets/ui.js, `subscribeToEvents`) turns each event of the message history stream into a
 * `pier:message-history` DOM event, and htmx then fetches the region's rows again and swaps
 * them in place (no full reload). The stream is offered (body data-events) only when this
 * process has GET /events (the events issue); without it the regions are static.
 */
import type { FastifyInstance } from 'fastify';
import { html, type Html } from './html.js';
import { uiPrefix } from './layout.js';
import { callApi, queryOf, uiContext, type UiDeps } from './pages/common.js';

/** Where the browser subscribes: a UI route that runs GET /events for the signed-in user. */
export const eventStreamPath = `${uiPrefix}/events`;

export function liveRegion(name: 'messages', content: Html, query = ''): Html {
  return html`<div
    id="live-${name}"
    data-live="${name}"
    hx-get="${uiPrefix}/${name}/rows${query}"
    hx-trigger="pier:message-history from:body throttle:1s"
    hx-swap="innerHTML"
  >
    ${content}
  </div>`;
}

/** Relays GET /events (its own query schema, Last-Event-ID and reload) to the UI user. */
export function registerEventRelay(app: FastifyInstance, deps: UiDeps): void {
  if (!deps.api.has('GET', '/events')) return;
  app.get(eventStreamPath, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const outcome = await callApi(deps, ui, request, reply, 'GET', '/events', { query: queryOf(request) });
    if (!outcome.ok) throw outcome.error;
    return reply;
  });
}
