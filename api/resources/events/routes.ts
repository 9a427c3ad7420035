/** GET /events (docs/api/events.md#message-history-stream): the message history stream as Server-Sent Events. */
import type { FastifyInstance } from 'fastify';
import { FastifySSEPlugin } from 'fastify-sse-v2';
import { z } from 'zod';
import { runtimeOf, type ApiContext } from '../../context.js';
import type { ApiRouter } from '../../http/router.js';
import { validationError } from '../../errors.js';
import { SseOutput } from './sse-output.js';
import { HistoryStream } from './stream.js';
import { limits } from '../../../limits/limits.js';

const EventsQuery = z.strictObject({ message_id: z.uuid().optional() });

/** Streams open in each server, closed when it stops (an open stream would hold it up). */
const openStreams = new WeakMap<ApiContext, Set<HistoryStream>>();

/** The SSE plugin and the hook that ends every stream when the server closes. */
export async function installEventStreams(app: FastifyInstance, ctx: ApiContext): Promise<void> {
  // Each stream sends its retry delay itself, as its first event (see SseOutput).
  await app.register(FastifySSEPlugin, { retryDelay: false });
  openStreams.set(ctx, new Set());
  app.addHook('preClose', async () => {
    for (const stream of openStreams.get(ctx) ?? []) stream.close();
  });
}

/**
 * Every open stream gets a final `stopping` event and ends: the server is draining, and a stream
 * would hold its stop. The client reconnects with its Last-Event-ID, to another node or to this
 * one once it is back, and misses nothing.
 */
export function endEventStreams(ctx: ApiContext, retryAfterSeconds: number): void {
  const last = {
    event: 'stopping',
    data: JSON.stringify({ reason: 'the server is stopping', retry_after_seconds: retryAfterSeconds }),
  };
  for (const stream of openStreams.get(ctx) ?? []) stream.close(last);
}

function lastEventId(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header[0] : header;
  if (text === undefined || !/^\d{1,15}$/.test(text.trim())) {
    throw validationError({ 'Last-Event-ID': 'Must be the id of an event (a whole number)' });
  }
  return Number(text.trim());
}

export function registerEventRoutes(router: ApiRouter, ctx: ApiContext): void {
  router.add({
    method: 'GET',
    url: '/events',
    tag: 'Events',
    summary: 'Message history lines as they are written (Server-Sent Events)',
    query: EventsQuery,
    raw: {
      mediaType: 'text/event-stream',
      description:
        'Events `message_history` (id: the line id; data: the line as JSON) and, when the client missed too much or reads too slowly, one `reload` before the stream ends',
    },
    handler: async ({ query, request, reply }) => {
      const feed = runtimeOf(ctx).history;
      const stream = new HistoryStream(
        feed,
        { messageId: query.message_id, lastEventId: lastEventId(request.headers['last-event-id']) },
        feed.limits,
      );
      const open = openStreams.get(ctx);
      open?.add(stream);
      reply.raw.once('close', () => {
        stream.close();
        open?.delete(stream);
      });
      await stream.open();
      stream.attach(new SseOutput(reply, limits.eventStreamRetryMs, feed.limits.buffer));
    },
  });
}
