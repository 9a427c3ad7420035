/**
 * The receiver's other listener threads (actors/shared/instance-threads.ts), each running this
 * same actor (worker.ts) on the same port (listener-plan.ts): its own server, opening pool,
 * database connection for the acceptances, and hand-off channels to the file writers of this
 * process, branched from the first thread's own (the writer answers on each as on the one the
 * supervisor made, and may spread it over its own threads).
 *
 * The receiver is ready once its first thread listens; the others start meanwhile and take
 * connections as each comes up. A listener that fails to start or ends by itself takes the
 * receiver with it, rather than keep one that takes only part of its port's connections.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { branchHandoff } from '../../protocol/handoff-protocol.js';
import { InstanceThreads } from '../shared/instance-threads.js';

/** Started, counted and stopped as every instance's threads are (InstanceThreads). */
export class ListenerThreads extends InstanceThreads {
  /**
   * A channel to `target` for each listener thread, branched from this thread's own; those that
   * start later get theirs then.
   */
  handOffTo(target: string, channel: MessagePort): void {
    this.give(target, () => {
      const port = branchHandoff(channel, new MessageChannel());
      return { body: { type: 'handoff_to', target, port }, transfer: [port] };
    });
  }
}
