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
 * Live updates: the message history events of the stream become `pier:message-history` DOM
 * events, which the live regions (hx-trigger) answer by fetching their content again. Events
 * are coalesced: one DOM event at most every half second, always after the last stream event,
 * so a burst costs one refresh and the final state is never skipped. The regions are also
 * refreshed whenever a stream opens, for what changed before it did. The stream's address is
 * given by the server on <body data-events>; without one nothing is subscribed.
 */
function subscribeToEvents() {
  const url = document.body.getAttribute('data-events');
  if (!url || !('EventSource' in window)) return;
  let pending;
  const refresh = () => {
    if (pending) return;
    pending = window.setTimeout(() => {
      pending = undefined;
      document.body.dispatchEvent(new CustomEvent('pier:message-history'));
    }, 500);
  };
  const connect = () => {
    const source = new EventSource(url);
    // Every stream that opens shows the current state first: what changed before it (since the
    // page was made, or while the stream was away) came as no event. The server listens before
    // it answers, so nothing falls between.
    source.addEventListener('open', refresh);
    source.addEventListener('message_history', refresh);
    // The server missed or dropped lines: start afresh (the new stream shows the current state).
    source.addEventListener('reload', () => {
      source.close();
      connect();
    });
    // The server is stopping: come back when it says (another node, or this one restarted);
    // a browser gives up by itself on the 503 of a drain.
    const later = (seconds) => window.setTimeout(connect, seconds * 1000);
    source.addEventListener('stopping', (event) => {
      source.close();
      let seconds = 10;
      try {
        seconds = Number(JSON.parse(event.data).retry_after_seconds) || seconds;
      } catch {
        // the default
      }
      later(seconds);
    });
    source.addEventListener('error', () => {
      if (source.readyState === EventSource.CLOSED) later(10);
    });
  };
  connect();
}
document.addEventListener('DOMContentLoaded', subscribeToEvents);
