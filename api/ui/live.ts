/**
 * The one place live updates plug in. A page with live regions asks the layout for a
 * subscription (PageOptions.live); the page script (assets/ui.js) then opens the event stream
 * and turns its message history events into one `pier:message-history` DOM event at most
 * twice a second (always after the last one), and htmx fetches each region's content again
 * and swaps it in place: no full reload. Once more when the stream opens: a change between the
 * page's rendering and its subscription sends no event. The stream is offered only when this
 * process has GET /events (the events issue); without it the regions are static.
 */
import type { FastifyInstance } from 'fastify';
import { html, type Html } from './html.js';
import { uiPrefix } from './layout.js';
import { callApi, queryOf, uiContext, type UiDeps } from './components/request-context.js';

/** Where the browser subscribes: a UI route that runs GET /events for the signed-in user. */
export const eventStreamPath = `${uiPrefix}/events`;

interface LiveRegion {
  /** Element id, `live-<name>`. */
  name: string;
  /** The UI route answering the region's content alone. */
  url: string;
  content: Html;
  /**
   * Announce changes to screen readers (aria-live). Only for small regions: a region swapped
   * whole is read out whole.
   */
  announce?: boolean;
}

/** A region whose content htmx fetches again on each (coalesced) message history event. */
export function liveRegion(region: LiveRegion): Html {
  return html`<div
    id="live-${region.name}"
    data-live="${region.name}"
    hx-get="${region.url}"
    hx-trigger="pier:message-history from:body"
    hx-swap="innerHTML"
    ${region.announce ? html`aria-live="polite"` : ''}
  >
    ${region.content}
  </div>`;
}

/**
 * A line that says what changed, kept in the page while the region around it is swapped: a
 * fragment updates it out of band (`hx-swap-oob`), so screen readers announce the new text
 * (a live region inserted afresh is not announced).
 */
export function liveStatus(id: string, text: Html | string, outOfBand = false): Html {
  return outOfBand
    ? html`<p id="${id}" hx-swap-oob="innerHTML">${text}</p>`
    : html`<p id="${id}" class="live-status" role="status" aria-live="polite" aria-atomic="true">${text}</p>`;
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
