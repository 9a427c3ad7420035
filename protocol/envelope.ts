/**
 * The frame of every message between the supervisor and an actor thread: the start
 * handshake, requests with their responses (either side may ask), and events that need
 * no answer. Checked on arrival on both sides, because a thread's messages are data,
 * not trusted types.
 */
import { z } from 'zod';

/** An error crossing a thread: classes do not survive postMessage, so decisions read `code`. */
export const WireError = z.object({ code: z.string().max(64), message: z.string().max(4096) });
export type WireError = z.infer<typeof WireError>;

export const Envelope = z.discriminatedUnion('kind', [
  /** The actor parsed its configuration and opened its resources. */
  z.object({ kind: z.literal('ready') }),
  /** The actor could not start; it exits after sending this. */
  z.object({ kind: z.literal('init-failed'), error: WireError }),
  z.object({ kind: z.literal('request'), id: z.number().int(), body: z.unknown() }),
  z.discriminatedUnion('ok', [
    z.object({ kind: z.literal('response'), id: z.number().int(), ok: z.literal(true), body: z.unknown() }),
    z.object({ kind: z.literal('response'), id: z.number().int(), ok: z.literal(false), error: WireError }),
  ]),
  z.object({ kind: z.literal('event'), body: z.unknown() }),
]);
export type Envelope = z.infer<typeof Envelope>;

/** Error codes of the channel itself. */
export const channelErrors = {
  /** The thread ended while a request waited for its answer. */
  workerExited: 'WORKER_EXITED',
  /** A message did not match the protocol. */
  badMessage: 'BAD_MESSAGE',
  /** The other side's handler threw. */
  handlerFailed: 'HANDLER_FAILED',
  /** The actor has no answer to a question of this kind (it is not of a type that answers it). */
  notAnswered: 'NOT_ANSWERED',
  /** No answer came within the time the asking side gave. */
  timedOut: 'TIMED_OUT',
} as const;

export class ChannelError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ChannelError';
  }
}

export function toWireError(error: unknown): WireError {
  const message = String(error instanceof Error ? error.message : error).slice(0, 4096);
  if (error && typeof error === 'object' && 'code' in error && typeof error.code === 'string') {
    return { code: error.code.slice(0, 64), message };
  }
  return { code: channelErrors.handlerFailed, message };
}
