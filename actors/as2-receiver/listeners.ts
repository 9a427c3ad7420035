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
import type { CoreClient } from '../../protocol/worker-host/host.js';
import type { ActorStartData } from '../../protocol/worker-host/start-data.js';
import { InstanceThreads } from '../shared/instance-threads.js';

export class ListenerThreads {
  readonly #threads: InstanceThreads;

  /**
   * Starts `count` more listener threads of the receiver `start` describes, in the background.
   * `onLost` is called when one fails to start or ends without being asked to.
   */
  constructor(
    count: number,
    entry: URL,
    start: ActorStartData,
    core: CoreClient,
    onLost: (reason: string) => void,
  ) {
    this.#threads = new InstanceThreads(count, entry, start, core, onLost);
  }

  /** Settles once every listener started or failed to. */
  get started(): Promise<void> {
    return this.#threads.started;
  }

  /** Listener threads that listen now, the first not counted. */
  get count(): number {
    return this.#threads.count;
  }

  /**
   * A channel to `target` for each listener thread, branched from this thread's own; those that
   * start later get theirs then.
   */
  handOffTo(target: string, channel: MessagePort): void {
    this.#threads.give(target, () => {
      const port = branchHandoff(channel, new MessageChannel());
      return { body: { type: 'handoff_to', target, port }, transfer: [port] };
    });
  }

  /** Stops every listener thread (each drains as this one does) within `withinMs`; ends those starting. */
  stop(withinMs?: number): Promise<void> {
    return this.#threads.stop(withinMs);
  }
}
