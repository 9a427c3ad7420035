/**
 * The file writer's other threads (actors/shared/instance-threads.ts), each running this same
 * actor (worker.ts): its own share of `max_concurrent_deliveries` for the queued deliveries it
 * claims from PostgreSQL (as several nodes claim from one queue), and its own part of the
 * hand-offs. Each channel a source hands documents on, to the first thread, is spread to every
 * other thread (spreadHandoff): the source then hands each document to one thread in turn, and
 * asks that one to name it, so no thread is in the path of every message.
 *
 * Only the first thread resolves what a crash or a stop left in the directory (when the writer
 * starts, before the others, and from time to time after): the others' files in hand are theirs.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { spreadHandoff } from '../../protocol/handoff-protocol.js';
import { InstanceThreads } from '../shared/instance-threads.js';

/** Started, counted and stopped as every instance's threads are (InstanceThreads). */
export class WriterThreads extends InstanceThreads {
  /** A channel from `source` the first thread serves: each other thread gets one beside it. */
  spread(source: string, channel: MessagePort): void {
    this.give(channel, () => {
      const port = spreadHandoff(channel, new MessageChannel());
      return { body: { type: 'handoff_from', source, port }, transfer: [port] };
    });
    channel.once('close', () => this.forget(channel));
  }

  /** Deliveries are queued: each thread claims its share. */
  poke(): void {
    this.work();
  }
}
