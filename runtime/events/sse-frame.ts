/**
 * Server-Sent Events framing (WHATWG HTML, "Server-sent events"). Each history line is framed
 * once in the feed and the same text goes to every subscriber, so a line costs one
 * serialisation however many clients watch. The text is what fastify-sse-v2, which carries the
 * stream's other events, makes of the same event (sse-frame.test.ts holds the two together).
 */

/** One event: `id`, `event` and each line of `data` as its own `data:` field. */
export function sseFrame(event: string, data: string, id?: number | string): string {
  const head = id === undefined ? '' : `id: ${id}\n`;
  // JSON text has no raw newlines; other data may, and each line needs its own field.
  const body = data.includes('\n') ? data.split('\n').join('\ndata: ') : data;
  return `${head}event: ${event}\ndata: ${body}\n\n`;
}
