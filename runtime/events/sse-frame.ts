/**
 * Server-Sent Events framing (WHATWG HTML, "Server-sent events"). Each history line is framed
 * once in the feed and the same text goes to every subscriber, so a line costs one
 * serialisation however many clients watch.
 */

/** One event: `id`, `event` and each line of `data` as its own `data:` field. */
export function sseFrame(event: string, data: string, id?: number | string): string {
  const head = id === undefined ? '' : `id: ${id}\n`;
  // JSON text has no raw newlines; other data may, and each line needs its own field.
  const body = data.includes('\n') ? data.split('\n').join('\ndata: ') : data;
  return `${head}event: ${event}\ndata: ${body}\n\n`;
}

/** A comment line: ignored by clients, it keeps proxies and idle timers from closing the stream. */
export const sseComment = (text: string): string => `:${text}\n\n`;

/** The reconnection delay a client should wait, in milliseconds. */
export const sseRetry = (ms: number): string => `retry: ${ms}\n\n`;
