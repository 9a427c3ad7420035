/**
 * A subscriber of GET /api/v1/events that stays on as a browser's EventSource does: when its
 * stream ends or cannot be opened it connects again (to the next URL in turn) with the id of the
 * last line it got as Last-Event-ID, and keeps every history line id it received, in order.
 */
import { openSse, type SseClient } from './sse.js';

export interface HistoryFollower {
  /** Line ids in the order they came (a repeated id is kept, to be told). */
  ids: number[];
  /** Streams opened, the first included. */
  readonly connections: number;
  /** Streams that ended with `reload`: the server could not replay what the client missed. */
  readonly reloads: number;
  /** One line per stream opened or tried: when, where, after which id, and how it ended. */
  readonly streams: string[];
  /** Adds a line of the test's own to `streams` (a failover began, say), timed like the others. */
  note(text: string): void;
  /** Ends the stream now, as a network failure would; the follower connects again. */
  reconnect(): void;
  close(): void;
}

/** Milliseconds before a stream that ended or failed to open is opened again. */
const reconnectMs = 500;

export async function followHistory(urls: string[]): Promise<HistoryFollower> {
  const ids: number[] = [];
  let connections = 0;
  let reloads = 0;
  let closed = false;
  let current: SseClient | undefined;
  let taken = 0;
  const streams: string[] = [];
  const started = Date.now();
  const open = async (): Promise<SseClient> => {
    const last = ids.at(-1);
    const where = connections % urls.length;
    const said = `${Date.now() - started} ms: process ${where} after ${last ?? 'none'}`;
    const client = await openSse(
      `${urls[where]}/api/v1/events`,
      last === undefined ? {} : { 'last-event-id': String(last) },
    ).catch((error: unknown) => {
      streams.push(`${said}: ${String(error)}`);
      throw error;
    });
    connections++;
    if (client.status !== 200) {
      streams.push(`${said}: ${client.status} ${client.body().slice(0, 200)}`);
      client.close();
      throw new Error(`GET /events answered ${client.status}`);
    }
    streams.push(`${said}: 200`);
    taken = 0;
    return client;
  };
  // Only the events that came since the last drain: reading every line again at each drain
  // made the follower's own work grow with the stream (16,000 lines, 20 drains a second).
  const drain = () => {
    if (!current) return;
    const events = current.events;
    for (; taken < events.length; taken++) {
      const event = events[taken]!;
      if (event.event === 'message_history') ids.push(Number(event.id));
    }
  };
  const poll = setInterval(drain, 50);
  void (async () => {
    while (!closed) {
      await current?.ended;
      drain();
      const reload = current?.events.find((e) => e.event === 'reload');
      if (reload) reloads++;
      streams.push(
        `${Date.now() - started} ms: ended at ${ids.at(-1)}${reload ? ` with reload ${reload.data}` : ''}`,
      );
      if (closed) break;
      await new Promise((resolve) => setTimeout(resolve, reconnectMs));
      current = await open().catch(() => undefined);
      while (!current && !closed) {
        await new Promise((resolve) => setTimeout(resolve, reconnectMs));
        current = await open().catch(() => undefined);
      }
    }
  })();
  return {
    ids,
    get connections() {
      return connections;
    },
    get reloads() {
      return reloads;
    },
    streams,
    note(text) {
      streams.push(`${Date.now() - started} ms: ${text}`);
    },
    reconnect() {
      current?.close();
    },
    close() {
      closed = true;
      clearInterval(poll);
      current?.close();
    },
  };
}
