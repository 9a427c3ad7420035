/**
 * The file writer's side of a hand-off (protocol/handoff-protocol.ts): a source of this process
 * gives it a document before the message is accepted. The writer writes it, flushed, under a
 * temporary name of the message's own (temporaries.ts) while the acceptance commits; that
 * acceptance stores the delivery as held by this writer (delivering, claimed by this node). Once
 * it committed, the writer gives the file its real name and only then records the delivery
 * delivered ("Written to …"), several at once while a record is under way; a drop removes the file.
 *
 * It declines (the message then takes the queue) while it is stopping, while `limits.writerMaxInHand`
 * documents wait for their acceptance, and when the file's name is taken already: the queued way
 * knows what to do then (`if_exists`), and a handed file must not be refused after its delivery
 * was recorded. Naming can still fail after that commit (another writer took the name meanwhile,
 * the directory cannot be made): the delivery is then queued again with the reason, and is
 * written from the payload store as any queued delivery is.
 *
 * A crash at any point keeps the promise that every receipted document reaches its target once:
 * a delivery is delivered only once its file is named; a held delivery of a dead node is taken
 * back by the orphan sweep and written by the queue, which counts a file already there with the
 * same bytes as delivered; the handed files left behind are resolved here (resolveLeftovers).
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
import type { DeliveryPort, LeftoverOutcome } from '../shared/delivery-port.js';
import { handedFiles, handedTemporaryPath, type HandedFile } from './temporaries.js';
import { removeQuietly, sameContent, type FileWriter } from './write.js';
import { limits } from '../../limits/limits.js';

/** What the writer did with the handed files nobody held, for its one log line. */
export interface LeftoverCounts {
  found: number;
  queued: number;
  removed: number;
  held: number;
}

interface InHand {
  temp: string;
  final: string;
  relative: string;
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
   * (a failover): asked again every `limits.writerRequeueRetryMs`, since the acceptance may have committed
   * and a delivery held here with no file named would otherwise wait for the writer's stop.
   */
  readonly #unsettled = new Map<string, { temp: string; reason: string }>();
  #retryTimer: NodeJS.Timeout | undefined;
  #sweepTimer: NodeJS.Timeout | undefined;
  /**
   * This node's handed files found at start whose deliveries could not be read then (the
   * database away): looked at again by the later sweeps, which otherwise pass over this node's
   * files (they may be in hand). Left alone, such a file stayed until the writer's next start.
   */
  readonly #ownLeft = new Set<string>();
  /** Named files whose deliveries wait to be recorded delivered, and the record under way. */
  readonly #named: { delivery_id: number; detail: string }[] = [];
  #recording: Promise<void> = Promise.resolve();
  #recordingNow = false;

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
    if (this.#inHand.size >= limits.writerMaxInHand)
      return { taken: false, reason: 'the writer is far behind' };
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
    this.#inHand.set(message.id, { temp, final, relative, written });
    this.#finals.add(final);
    // The acceptance's history line: the file has no name yet ("Written to …" once it has).
    return { taken: true, detail: `Writing ${relative}` };
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
      // The receipt waits for the name, not for this record: the acceptance made the document
      // durable, and a crash before the record leaves a claim the orphan sweep takes back.
      this.#record({ delivery_id, detail: `Written to ${entry.relative}` });
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
    // An acceptance that failed without an answer may have stored the delivery as held here:
    // queued again then (written from the store), and the file goes either way once the database
    // said so; while it cannot say, the file stays for the writer's next start (resolveLeftovers).
    if (uncertain)
      await this.#requeue(message_id, entry.temp, 'the acceptance answered no more after it was sent');
    else removeQuietly(entry.temp);
    return { dropped: true };
  }

  /**
   * Answers a source's hand-offs on `channel` until either side closes it. `spread`: given each
   * channel served here, to spread it over the writer's other threads (threads.ts).
   */
  serve(channel: MessagePort, spread: (channel: MessagePort) => void = () => {}): void {
    this.#channels.add(channel);
    channel.once('close', () => this.#channels.delete(channel));
    // A source with several threads (the AS2 receiver's listeners) branches one channel per thread.
    serveHandoff(channel, this, (branch) => this.serve(branch, spread));
    spread(channel);
  }

  /**
   * Declines what is handed from now on; what is in hand is named or dropped as its sources say.
   * Waits (briefly) for the records of files named already: a delivery left held when the thread
   * ends is taken back by the supervisor and written again by the queue, which is correct (the
   * file is there with the same bytes) but needless.
   */
  async stopping(): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    clearInterval(this.#sweepTimer);
    this.#sweepTimer = undefined;
    await Promise.race([this.#recording, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
  }

  /**
   * At start, and every `limits.leftoverSweepEveryMs` for other nodes' files (and this node's
   * that the start could not resolve): the handed files a crash or a stop left, which nobody here
   * holds. Each one's delivery is asked about (flow/commands/handed.ts, handedLeftover): still
   * held by a live node, the file stays; held by a dead one (or by this node), it is queued again
   * and written from the payload store; not held (never accepted, settled already), the file
   * simply goes. A file whose delivery cannot be read now stays for the next look. Logs once what
   * it found and did, when it found anything.
   */
  async resolveLeftovers(atStart = true): Promise<LeftoverCounts> {
    const counts: LeftoverCounts = { found: 0, queued: 0, removed: 0, held: 0 };
    const now = Date.now();
    const left = (await handedFiles(this.directory)).filter((f) =>
      f.node === this.node
        ? atStart || this.#ownLeft.has(f.file)
        : now - f.mtimeMs >= limits.othersLeftoverAfterMs,
    );
    for (const leftover of left) {
      counts.found++;
      const outcome = await this.#resolve(leftover).catch(() => undefined);
      if (outcome === undefined || outcome === 'held') {
        if (leftover.node === this.node) this.#ownLeft.add(leftover.file);
        counts.held++;
        continue;
      }
      this.#ownLeft.delete(leftover.file);
      if (outcome === 'queued') counts.queued++;
      removeQuietly(leftover.file);
      counts.removed++;
    }
    if (counts.found > counts.held || (atStart && counts.found > 0))
      this.port.log('info', 'resolved the handed files a stop or a crash left', { ...counts });
    return counts;
  }

  /** Looks for other nodes' leftovers from time to time, while the writer runs. */
  sweepLeftovers(): void {
    if (this.#stopping || this.#sweepTimer !== undefined) return;
    let sweeping = false;
    this.#sweepTimer = setInterval(() => {
      if (sweeping) return;
      sweeping = true;
      void this.resolveLeftovers(false)
        .catch(() => undefined)
        .finally(() => (sweeping = false));
    }, limits.leftoverSweepEveryMs);
    this.#sweepTimer.unref();
  }

  async #resolve({ messageId, node }: HandedFile): Promise<LeftoverOutcome> {
    if (!this.port.handedLeftover) return 'settled';
    return this.port.handedLeftover(
      messageId,
      node,
      'the file writer stopped before it named the file handed to it',
    );
  }

  /**
   * Records a named file's delivery as delivered: with the others named meanwhile when a record
   * is under way (one statement for them all), tried again while the database does not answer.
   */
  #record(named: { delivery_id: number; detail: string }): void {
    if (!this.port.recordHanded) return;
    this.#named.push(named);
    if (!this.#recordingNow) this.#startRecording();
  }

  #startRecording(): void {
    this.#recordingNow = true;
    this.#recording = this.#recordNamed().finally(() => {
      this.#recordingNow = false;
      // One named between the loop's last look and this: it would wait for the next file.
      if (this.#named.length > 0 && !this.#stopping) this.#startRecording();
    });
  }

  async #recordNamed(): Promise<void> {
    let warned = false;
    while (this.#named.length > 0) {
      // A moment for the files named meanwhile to join: each record is a commit, and under load
      // one per file or two doubled the receive path's commits (benchmarks/history,
      // 2026-11-27-a-handed-delivery-recorded-once-named.md). The receipt does not wait for it.
      if (!this.#stopping) await new Promise((resolve) => setTimeout(resolve, limits.writerRecordAfterMs));
      const batch = this.#named.splice(0, this.#named.length);
      try {
        await this.port.recordHanded!(batch);
      } catch (error) {
        if (!warned)
          this.port.log('warn', 'could not record named handed files as delivered; trying again', {
            deliveries: batch.length,
            error: (error as Error).message,
          });
        warned = true;
        this.#named.unshift(...batch);
        if (this.#stopping) return;
        await new Promise((resolve) => setTimeout(resolve, limits.writerRequeueRetryMs));
      }
    }
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
    }, limits.writerRequeueRetryMs);
    this.#retryTimer.unref();
  }
}
