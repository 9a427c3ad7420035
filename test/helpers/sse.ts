/** A Server-Sent Events client over real HTTP for the event stream tests: parses frames as a browser would. */
import http, { type IncomingMessage } from 'node:http';
import { waitFor } from './wait.js';

export interface SseEvent {
  event?: string;
  id?: string;
  data?: string;
  comment?: string;
  retry?: string;
}

export interface SseClient {
  status: number;
  headers: IncomingMessage['headers'];
  /** The answer's body when it is not a stream (an error envelope). */
  body(): string;
  events: SseEvent[];
  /** Parsed data of the message_history events received so far. */
  lines(): { id: number; message_id: string; kind: string; [key: string]: unknown }[];
  ended: Promise<void>;
  isEnded(): boolean;
  response: IncomingMessage;
  until<T>(probe: () => T | undefined | false, what: string, timeoutMs?: number): Promise<T>;
  close(): void;
}

function parseFrame(frame: string): SseEvent | undefined {
  const event: SseEvent = {};
  let data: string[] | undefined;
  for (const line of frame.split('\n')) {
    if (line.startsWith(':')) event.comment = line.slice(1);
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const field = line.slice(0, colon);
    const value = line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event.event = value;
    else if (field === 'id') event.id = value;
    else if (field === 'data') (data ??= []).push(value);
    else if (field === 'retry') event.retry = value;
  }
  if (data) event.data = data.join('\n');
  return Object.keys(event).length > 0 ? event : undefined;
}

export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, (response) => {
      let text = '';
      let raw = '';
      let ended = false;
      const events: SseEvent[] = [];
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        raw += chunk.length + raw.length < 1_000_000 ? chunk : '';
        text += chunk;
        let end: number;
        while ((end = text.indexOf('\n\n')) >= 0) {
          const event = parseFrame(text.slice(0, end));
          text = text.slice(end + 2);
          if (event) events.push(event);
        }
      });
      const endedPromise = new Promise<void>((done) => {
        response.once('end', () => ((ended = true), done()));
        response.once('close', () => ((ended = true), done()));
      });
      resolve({
        status: response.statusCode ?? 0,
        headers: response.headers,
        body: () => raw,
        events,
        lines: () =>
          events.filter((e) => e.event === 'message_history').map((e) => JSON.parse(e.data ?? '{}')),
        ended: endedPromise,
        isEnded: () => ended,
        response,
        until: (probe, what, timeoutMs = 20_000) => waitFor(probe, what, timeoutMs),
        close: () => request.destroy(),
      });
    });
    request.once('error', reject);
    // A client closed by the test ends its request with an error nobody needs to hear.
    request.on('error', () => {});
  });
}
