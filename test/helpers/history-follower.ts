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
  const open = async (): Promise<SseClient> => {
    const last = ids.at(-1);
    const client = await openSse(
      `${urls[connections % urls.length]}/api/v1/events`,
      last === undefined ? {} : { 'last-event-id': String(last) },
    );
    connections++;
    if (client.status !== 200) {
      client.close();
      throw new Error(`GET /events answered ${client.status}`);
    }
    taken = 0;
    return client;
  };
  const drain = () => {
    if (!current) return;
    const lines = current.lines();
    for (; taken < lines.length; taken++) ids.push(lines[taken]!.id);
  };
  current = await open();
  const poll = setInterval(drain, 50);
  void (async () => {
    while (!closed) {
      await current?.ended;
      drain();
      if (current?.events.some((e) => e.event === 'reload')) reloads++;
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
