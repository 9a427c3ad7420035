/* global document, window, navigator, EventSource, CustomEvent */
// Pier web UI behaviour that plain HTML cannot do: copying a new token, and the one place
// that subscribes to the event stream (see api/ui/live.ts). No inline script anywhere.
'use strict';

document.addEventListener('click', (event) => {
  const button = event.target.closest('[data-copy]');
  if (!button) return;
  const source = document.getElementById(button.getAttribute('data-copy'));
  if (!source) return;
  navigator.clipboard.writeText(source.textContent.trim()).then(
    () => (button.textContent = 'Copied'),
    () => (button.textContent = 'Select the text and copy it'),
  );
});

/**
 * Live updates: relays each message history event as a `pier:message-history` DOM event, which
 * the live regions (hx-trigger) answer by fetching their rows again. The stream's address is
 * given by the server on <body data-events>; without one nothing is subscribed.
 */
function subscribeToEvents() {
  const url = document.body.getAttribute('data-events');
  if (!url || !('EventSource' in window)) return;
  let source = new EventSource(url);
  const relay = (e) =>
    document.body.dispatchEvent(new CustomEvent('pier:message-history', { detail: e.data }));
  source.addEventListener('message_history', relay);
  source.addEventListener('reload', () => {
    source.close();
    relay({ data: null });
    source = new EventSource(url);
    source.addEventListener('message_history', relay);
  });
}
document.addEventListener('DOMContentLoaded', subscribeToEvents);
