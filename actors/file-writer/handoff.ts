/**
 * The file writer's side of a hand-off (protocol/handoff-protocol.ts): a source of this process
 * gives it a document before the message is accepted. The writer writes it, flushed, under a
 * temporary name of the message's own (temporaries.ts) while the acceptance commits, and gives it
 * its real name only once that acceptance stored the delivery as delivered; a drop removes it.
 *
 * It declines (the message then takes the queue) while it is stopping, while `maxInHand`
 * documents wait for their acceptance, and when the file's name is taken already: the queued way
 * knows what to do then (`if_exists`), and a handed file must not be refused after its delivery
 * was recorded. Naming can still fail after that commit (another writer took the name meanwhile,
 * the directory cannot be made): the delivery is then queued again with the reason, and is
 * written from the payload store as any queued delivery is.
 */
import { existsSync } from 'node:fs';
import type { MessagePort } from 'node:worker_threads';
import {
  serveHandoff,
  type HandAnswer,
  type HandoffHandler,
  type HandRequest,
  type LinkAnswer,
} from '../../protocol/handoff-protocol.js';
import { PayloadMissing } from '../../storage/payloads/store.js';
import type { DeliveryPort } from '../shared/delivery-port.js';
import { handedTemporaryPath, leftHanded } from './temporaries.js';
import { removeQuietly, sameContent, type FileWriter } from './write.js';

/**
 * Documents written and waiting for their acceptance, at most. About what two cores accept in a
 * tenth of a second: a writer this far behind is not one that finishes in bounded time.
 */
export const maxInHand = 64;

/** Milliseconds between two tries to queue again a handed delivery the database did not answer for. */
const requeueRetryMs = 2_000;

interface InHand {
  temp: string;
  final: string;
  relative: string;
  since: number;
  /** Settles when the file is written and flushed: null, or why it could not be. */
  written: Promise<string | null>;
}

export class HandoffTaker implements HandoffHandler {
  readonly #inHand = new Map<string, InHand>();
  /** The names the documents in hand will get. */
  readonly #finals = new Set<string>();
  /** The channels sources hand documents on: referenced here, or they would be collected and close. */
  readonly #channels = new Set<MessagePort>();
  #stopping = false;
  /**
   * Handed files whose delivery could not be queued again because the database did not answer
   * (a failover): asked again every `requeueRetryMs`, since the acceptance may have committed
   * and a delivery stored as delivered with no file named would otherwise wait for a restart.
   */
  readonly #unsettled = new Map<string, { temp: string; reason: string }>();
  #retryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly writer: FileWriter,
    private readonly directory: string,
    private readonly node: number,
    private readonly port: DeliveryPort,
  ) {}

  /**
   * Takes the document, or declines: answered at once, and the file is written meanwhile, so its
   * flush overlaps the acceptance's commit. The receipt does not wait for this flush (the payload
   * store holds the document already); the name does, so a named file is always whole.
   */
  async hand({ message, payload }: HandRequest): Promise<HandAnswer> {
    if (this.#stopping) return { taken: false, reason: 'the writer is stopping' };
    if (this.#inHand.size >= maxInHand) return { taken: false, reason: 'the writer is far behind' };
    if (this.#inHand.has(message.id)) return { taken: false, reason: 'this message is in hand already' };
    const { relative, final } = this.writer.placeOf(message);
    // Taken already, or by a document in hand: the queued way knows what to do (`if_exists`).
    if (existsSync(final) || this.#finals.has(final)) return { taken: false, reason: `${relative} exists` };
    const temp = handedTemporaryPath(this.directory, this.node, message.id);
    // Written after this answer has gone (setImmediate runs after the answer's postMessage): the
    // file's open and write are synchronous, and the source waits for the answer to send its
    // acceptance. At concurrency 1 this took 0.2 of the 0.7 ms the source waited.
    const written = new Promise((resolve) => setImmediate(resolve))
      .then(() =>
        this.writer.writeTemp(
          { messageId: message.id, stage: payload.stage },
          payload.content,
          temp,
          payload.bytes,
        ),
      )
      .then(
        () => null,
        (error: Error) => {
          removeQuietly(temp);
          return error instanceof PayloadMissing
            ? error.message
            : `could not write ${relative}: ${error.message}`;
        },
      );
    this.#inHand.set(message.id, { temp, final, relative, since: Date.now(), written });
    this.#finals.add(final);
    return { taken: true, detail: `Written to ${relative}` };
  }

  async link({ message_id, delivery_id }: { message_id: string; delivery_id: number }): Promise<LinkAnswer> {
    const entry = this.#inHand.get(message_id);
    if (!entry) {
      // Nothing to name: whatever its acceptance stored goes back to the queue.
      const error = 'the writer had nothing in hand under this message';
      await this.#requeue(message_id, null, error);
      return { ok: false, error };
    }
    const problem = (await entry.written) ?? (await this.#name(entry));
    this.#forget(message_id, entry);
    if (problem === null) {
      removeQuietly(entry.temp);
      this.port.handedDelivered?.({ message_id, delivery_id, elapsed_ms: Date.now() - entry.since });
      return { ok: true };
    }
    const error = `the file handed to the writer could not be named: ${problem}`;
    await this.#requeue(message_id, entry.temp, error);
    return { ok: false, error };
  }

  async drop({
    message_id,
    uncertain,
  }: {
    message_id: string;
    uncertain?: boolean;
  }): Promise<{ dropped: boolean }> {
    const entry = this.#inHand.get(message_id);
    if (!entry) return { dropped: false };
    await entry.written;
    this.#forget(message_id, entry);
    // An acceptance that failed without an answer may have stored the delivery as delivered:
    // queued again then (written from the store), and the file goes either way once the database
    // said so; while it cannot say, the file stays for the writer's next start (resolveLeftovers).
    if (uncertain)
      await this.#requeue(message_id, entry.temp, 'the acceptance answered no more after it was sent');
    else removeQuietly(entry.temp);
    return { dropped: true };
  }

  /** Answers a source's hand-offs on `channel` until either side closes it. */
  serve(channel: MessagePort): void {
    this.#channels.add(channel);
    channel.once('close', () => this.#channels.delete(channel));
    serveHandoff(channel, this);
  }

  /** Declines what is handed from now on; what is in hand is named or dropped as its sources say. */
  stopping(): void {
    this.#stopping = true;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
  }

  /**
   * At start: the handed files a crash or a stop left (temporaries.ts, leftHanded). A delivery
   * the acceptance stored as delivered is queued again (its file may or may not have its name;
   * the queued way writes it, or finds it there with the same content); the others' acceptance
   * never committed. A file whose delivery cannot be read now stays for the next start.
   */
  async resolveLeftovers(): Promise<number> {
    let queued = 0;
    for (const { file, messageId } of await leftHanded(this.directory, this.node)) {
      if (!this.port.requeueHanded) {
        removeQuietly(file);
        continue;
      }
      const again = await this.port
        .requeueHanded(messageId, 'the file writer stopped before it named the file handed to it')
        .catch(() => undefined);
      if (again === undefined) continue;
      if (again) queued++;
      removeQuietly(file);
    }
    return queued;
  }

  #forget(messageId: string, entry: InHand): void {
    this.#inHand.delete(messageId);
    this.#finals.delete(entry.final);
  }

  /** Null when the file has its name; else why not. */
  async #name(entry: InHand): Promise<string | null> {
    try {
      await this.writer.linkTo(entry.temp, entry.final);
      return null;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' && (await sameContent(entry.temp, entry.final).catch(() => false))) return null;
      return code === 'EEXIST' ? `${entry.relative} exists with other content` : (error as Error).message;
    }
  }

  /**
   * Queues the delivery again; when that fails, it is asked again a little later while the
   * writer runs, and its temporary stays for the next start if the writer stops first.
   */
  async #requeue(messageId: string, temp: string | null, reason: string): Promise<void> {
    try {
      await this.port.requeueHanded?.(messageId, reason);
      this.#unsettled.delete(messageId);
      if (temp !== null) removeQuietly(temp);
    } catch (error) {
      if (!this.#unsettled.has(messageId))
        this.port.log('warn', 'could not queue a handed delivery again; trying again', {
          message_id: messageId,
          error: (error as Error).message,
        });
      if (temp !== null) this.#unsettled.set(messageId, { temp, reason });
      this.#retryLater();
    }
  }

  #retryLater(): void {
    if (this.#stopping || this.#retryTimer !== undefined || this.#unsettled.size === 0) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      void Promise.all(
        [...this.#unsettled].map(([messageId, { temp, reason }]) => this.#requeue(messageId, temp, reason)),
      );
    }, requeueRetryMs);
    this.#retryTimer.unref();
  }
}
