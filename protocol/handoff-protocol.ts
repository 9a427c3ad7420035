/**
 * A hand-off: a receiving actor gives a document straight to a target actor of the same process
 * (a running file writer) over a MessageChannel the supervisor made between the two threads,
 * instead of queueing a delivery that the target claims from PostgreSQL later.
 *
 * Three questions, in this order for one message:
 * - `hand`: take the document or decline, answered at once; a target that takes it writes it
 *   where nobody reads it yet, flushed, while the source goes on;
 * - the source commits the acceptance, the delivery stored as delivered;
 * - `link`: give the file its name once it is written (after that commit), or `drop`: forget it
 *   (the acceptance stored nothing, or not this delivery).
 *
 * A target that cannot take a document in bounded time (stopping, far behind, the name taken)
 * answers `taken: false` and the message takes the queue. A channel closed while a question
 * waits (the target stopped or crashed) rejects it with WORKER_EXITED.
 */
import { MessagePort, type MessageChannel } from 'node:worker_threads';
import { z } from 'zod';
import { ChannelError, channelErrors, toWireError, WireError } from './envelope.js';
import { PayloadStage } from './core-protocol.js';
import { InlineContent, movableMemory } from './payload-wire.js';

export const HandRequest = z.object({
  type: z.literal('hand'),
  message: z.object({ id: z.uuid(), from: z.string(), to: z.string(), file_name: z.string() }),
  /**
   * `content`: the document's bytes when small (base64); `bytes`: the document in memory, moved to
   * the target (a large one whose stage the store keeps deflated); else the target reads the stage
   * from the store.
   */
  payload: z.object({
    stage: PayloadStage,
    size_bytes: z.number().int(),
    content: InlineContent.optional(),
    bytes: z.custom<Uint8Array>((value) => value instanceof Uint8Array).optional(),
  }),
});
export type HandRequest = z.infer<typeof HandRequest>;

export const HandAnswer = z.discriminatedUnion('taken', [
  /** Taken (being written); `detail`: the delivery's history text once named (`Written to …`). */
  z.object({ taken: z.literal(true), detail: z.string().max(2048) }),
  z.object({ taken: z.literal(false), reason: z.string().max(2048) }),
]);
export type HandAnswer = z.infer<typeof HandAnswer>;

export const LinkRequest = z.object({
  type: z.literal('link'),
  message_id: z.uuid(),
  /** The delivery the acceptance stored as delivered, for the target's log line. */
  delivery_id: z.number().int(),
});
export const LinkAnswer = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true) }),
  /** The file could not get its name: the delivery must be queued again (`error` says why). */
  z.object({ ok: z.literal(false), error: z.string().max(2048) }),
]);
export type LinkAnswer = z.infer<typeof LinkAnswer>;

export const DropRequest = z.object({
  type: z.literal('drop'),
  message_id: z.uuid(),
  /**
   * The acceptance failed without an answer (its connection broke): it may have committed after
   * all, so the target asks the database whether the delivery was stored before it removes the file.
   */
  uncertain: z.boolean().optional(),
});
const Dropped = z.object({ dropped: z.boolean() });

const questions = {
  hand: { request: HandRequest, answer: HandAnswer },
  link: { request: LinkRequest, answer: LinkAnswer },
  drop: { request: DropRequest, answer: Dropped },
} as const;

export const HandoffRequest = z.discriminatedUnion('type', [HandRequest, LinkRequest, DropRequest]);
export type HandoffRequest = z.infer<typeof HandoffRequest>;
type Questions = typeof questions;
export type HandoffAnswerTo<R extends HandoffRequest> = z.infer<Questions[R['type']]['answer']>;

const Frame = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('request'), id: z.number().int(), body: z.unknown() }),
  // One kind may appear only once in a discriminated union: the answers are told apart by `ok`.
  z.discriminatedUnion('ok', [
    z.object({ kind: z.literal('response'), id: z.number().int(), ok: z.literal(true), body: z.unknown() }),
    z.object({ kind: z.literal('response'), id: z.number().int(), ok: z.literal(false), error: WireError }),
  ]),
]);

/** The source's side of one channel to one target: questions with typed answers. */
export class HandoffClient {
  readonly #pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  #nextId = 1;
  #open = true;

  constructor(
    private readonly port: MessagePort,
    onClose: () => void,
    /**
     * A channel the target branched from this one to another of its threads (spreadHandoff): the
     * source asks there too. Absent, it is closed.
     */
    onBranch: (branch: MessagePort) => void = (branch) => branch.close(),
  ) {
    port.on('message', (raw: unknown) => {
      const branch = branchOf(raw);
      if (branch) return onBranch(branch);
      const frame = Frame.safeParse(raw);
      if (!frame.success || frame.data.kind !== 'response') return;
      const pending = this.#pending.get(frame.data.id);
      this.#pending.delete(frame.data.id);
      if (frame.data.ok) pending?.resolve(frame.data.body);
      else pending?.reject(new ChannelError(frame.data.error.code, frame.data.error.message));
    });
    port.on('close', () => {
      this.#open = false;
      for (const pending of this.#pending.values())
        pending.reject(new ChannelError(channelErrors.workerExited, 'the target stopped'));
      this.#pending.clear();
      onClose();
    });
    // A source idle between messages must not be kept alive by its channels; the client is
    // kept referenced by its owner, as a port nothing refers to is collected and closes.
    port.unref();
  }

  get open(): boolean {
    return this.#open;
  }

  async ask<R extends HandoffRequest>(request: R): Promise<HandoffAnswerTo<R>> {
    if (!this.#open) throw new ChannelError(channelErrors.workerExited, 'the target stopped');
    const id = this.#nextId++;
    const body = await new Promise<unknown>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      // A document's bytes are moved, not copied, when they own their memory: the source does
      // not use them after.
      const bytes = request.type === 'hand' ? request.payload.bytes : undefined;
      this.port.postMessage({ kind: 'request', id, body: request }, bytes ? movableMemory(bytes) : []);
    });
    return questions[request.type].answer.parse(body) as HandoffAnswerTo<R>;
  }

  close(): void {
    this.port.close();
  }
}

/**
 * A second channel to the target at the other end of `channel`, for another thread of the same
 * source (the AS2 receiver's listener threads): one end of `pair` goes to the target over
 * `channel`, which answers on it as on `channel`; the other end is returned, to be moved to that
 * thread. Only the supervisor can reach a target's thread; a source reaches it through what the
 * supervisor gave it.
 */
export function branchHandoff(channel: MessagePort, pair: MessageChannel): MessagePort {
  channel.postMessage({ kind: 'branch', port: pair.port2 }, [pair.port2]);
  return pair.port1;
}

/**
 * The other way: a channel from the source at the other end of `channel` to another thread of
 * the same target (a file writer's threads), so the source spreads its documents over the
 * target's threads and none of them is in the path of every message. One end of `pair` goes to
 * the source over `channel`, which asks on it as on `channel`; the other end is returned, to be
 * moved to the target's other thread, which serves it.
 */
export function spreadHandoff(channel: MessagePort, pair: MessageChannel): MessagePort {
  return branchHandoff(channel, pair);
}

/** A `branch` frame: a MessagePort for the other side to serve, or to ask on, as well. */
function branchOf(raw: unknown): MessagePort | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const frame = raw as { kind?: unknown; port?: unknown };
  return frame.kind === 'branch' && frame.port instanceof MessagePort ? frame.port : null;
}

export interface HandoffHandler {
  hand(request: HandRequest): Promise<HandAnswer>;
  link(request: z.infer<typeof LinkRequest>): Promise<LinkAnswer>;
  drop(request: z.infer<typeof DropRequest>): Promise<{ dropped: boolean }>;
}

/**
 * The target's side: answers each question on `port` with `handler`, and hands each channel
 * branched from it to `onBranch`. The caller keeps `port`
 * referenced: a port nothing refers to is collected, and its channel closes.
 */
export function serveHandoff(
  port: MessagePort,
  handler: HandoffHandler,
  /** Serves a channel the source branched from this one (branchHandoff); absent, it is closed. */
  onBranch: (branch: MessagePort) => void = (branch) => branch.close(),
): void {
  port.on('message', (raw: unknown) => {
    const branch = branchOf(raw);
    if (branch) return onBranch(branch);
    const frame = Frame.safeParse(raw);
    if (!frame.success || frame.data.kind !== 'request') return;
    const { id } = frame.data;
    const request = HandoffRequest.safeParse(frame.data.body);
    const answer = !request.success
      ? Promise.reject(new ChannelError(channelErrors.badMessage, 'not a hand-off question'))
      : answerOf(handler, request.data);
    answer.then(
      (body) => port.postMessage({ kind: 'response', id, ok: true, body }),
      (error: unknown) => port.postMessage({ kind: 'response', id, ok: false, error: toWireError(error) }),
    );
  });
}

function answerOf(handler: HandoffHandler, request: HandoffRequest): Promise<unknown> {
  switch (request.type) {
    case 'hand':
      return handler.hand(request);
    case 'link':
      return handler.link(request);
    case 'drop':
      return handler.drop(request);
    default: {
      const never: never = request;
      throw new Error(`unhandled ${String(never)}`);
    }
  }
}
