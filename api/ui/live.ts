/**
 * The one place live updates plug in. A live region names what it shows; the page script
 * (assets/ui.js, `subscribeToEvents`) turns each event of the message history stream into a
 * `pier:message-history` DOM event, and htmx then fetches the region's rows again and swaps
 * them in place (no full reload). Until the events issue lands there is no stream to
 * subscribe to, so `eventStreamUrl` is undefined and the regions are static.
 */
import { html, type Html } from './html.js';
import { uiPrefix } from './layout.js';

/** Where the browser subscribes (a UI route that relays GET /events to the signed-in user). */
export const eventStreamUrl: string | undefined = undefined;

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
