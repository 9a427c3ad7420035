/**
 * The receiver's other listener threads, started and kept by its first one (the instance's own
 * thread, which the supervisor started). Each runs this same actor (worker.ts) on the same port
 * (listener-plan.ts): its own server, opening pool, database connection for the acceptances, and
 * hand-off channels to the file writers of this process. To them this thread is the supervisor:
 * it speaks the actor protocol with them (protocol/actor-thread.ts) and passes on to the real one
 * what they ask and tell (questions, log lines, outages, counts), so the supervisor still sees one
 * instance with one thread. Per message nothing crosses this thread unless it logs at the
 * process's level.
 *
 * The receiver is ready once its first thread listens; the others start meanwhile and take
 * connections as each comes up. A listener that fails to start or ends by itself takes the
 * instance with it: this thread ends too, and the supervisor puts the instance in `error` with an
 * alert, as for any actor that crashed, rather than keep a receiver that takes only part of its
 * port's connections.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { ActorThread, StartFailure } from '../../protocol/actor-thread.js';
import { ActorEvent } from '../../protocol/core-protocol.js';
import type { As2Request } from '../../protocol/as2-protocol.js';
import { branchHandoff } from '../../protocol/handoff-protocol.js';
import type { CounterName, HistogramName, LabelsOf } from '../../protocol/metrics/catalog.js';
import type { CoreClient } from '../../protocol/worker-host/host.js';
import type { ActorStartData } from '../../protocol/worker-host/start-data.js';
import { limits } from '../../limits/limits.js';

export class ListenerThreads {
  /** Those that listen. */
  readonly #threads: ActorThread[] = [];
  /** Every one from its spawn to its end, starting ones included: a stop ends those too. */
  readonly #spawned = new Set<ActorThread>();
  /** The channel to each target this thread was given, to branch for listeners that come later. */
  readonly #channels = new Map<string, MessagePort>();
  #stopping = false;
  /** Settles once every listener started or failed to. */
  readonly started: Promise<void>;

  /**
   * Starts `count` more listener threads of the receiver `start` describes, in the background.
   * `onLost` is called when one fails to start or ends without being asked to: the receiver
   * then stops being one (worker.ts ends its thread).
   */
  constructor(
    count: number,
    entry: URL,
    start: ActorStartData,
    core: CoreClient,
    onLost: (reason: string) => void,
  ) {
    const one = (listener: number) =>
      ActorThread.start({
        entry,
        workerData: { ...start, listener } satisfies ActorStartData,
        startTimeoutMs: limits.listenerStartMs,
        endTimeoutMs: limits.listenerEndMs,
        threads: this.#spawned,
        // A listener's question (AS2 profiles, keys, records), passed to the supervisor, which checks
        // it; acceptances never come here, a listener accepts on its own connection.
        onRequest: (body) => core.ask(body as As2Request),
        onEvent: (body) => passOn(core, body),
        onExit: ({ expected, reason }) => {
          if (!expected && !this.#stopping) onLost(`listener thread ${listener} ended: ${reason}`);
        },
      }).then(
        (thread) => {
          if (this.#stopping) return void thread.terminate();
          this.#threads.push(thread);
          for (const [target, channel] of this.#channels) branchTo(thread, target, channel);
        },
        (error: unknown) => {
          if (!this.#stopping)
            onLost(
              `listener thread ${listener} did not start: ${error instanceof StartFailure ? error.message : String(error)}`,
            );
        },
      );
    this.started = Promise.all(Array.from({ length: count }, (_, i) => one(i + 2))).then(() => {});
  }

  /** Listener threads that listen now, the first not counted. */
  get count(): number {
    return this.#threads.length;
  }

  /**
   * A channel to `target` for each listener thread, branched from this thread's own (the target
   * answers on each as on the one the supervisor made); those that start later get theirs then.
   */
  handOffTo(target: string, channel: MessagePort): void {
    this.#channels.set(target, channel);
    for (const thread of this.#threads) branchTo(thread, target, channel);
  }

  /** Stops every listener thread (each drains as this one does) within `withinMs`; ends those starting. */
  async stop(withinMs = limits.listenerEndMs * 5): Promise<void> {
    this.#stopping = true;
    const listening = new Set(this.#threads);
    await Promise.all([...this.#spawned].map((t) => (listening.has(t) ? t.stop(withinMs) : t.terminate())));
  }
}

function branchTo(thread: ActorThread, target: string, channel: MessagePort): void {
  const port = branchHandoff(channel, new MessageChannel());
  thread.event({ type: 'handoff_to', target, port }, [port]);
}

/** A listener's event, told to the supervisor by this thread. */
function passOn(core: CoreClient, body: unknown): void {
  const event = ActorEvent.safeParse(body);
  if (!event.success) return;
  const e = event.data;
  switch (e.type) {
    case 'log':
      return core.log(e.level, e.msg, e.fields);
    case 'storage':
      return core.storage(e.ok, e.problem);
    case 'reach':
      return core.reach(e.ok, e.partner, e.error);
    case 'host_key':
      return core.hostKeyChanged(e.server, e.presented, e.pinned);
    case 'database':
      return core.database(e.ok, e.what, e.error);
    case 'metrics':
      // Counted again in this thread's tally, sent with its own. The listener's connection pool
      // (e.batch.pool) is left out: the gauges are per thread, and this thread's stand for the receiver.
      for (const c of e.batch.counters)
        core.metrics.count(c.name as CounterName, c.labels as LabelsOf<CounterName>, c.by);
      for (const o of e.batch.observations)
        for (const value of o.values)
          core.metrics.observe(o.name as HistogramName, o.labels as LabelsOf<HistogramName>, value);
      return;
    default: {
      const never: never = e;
      throw new Error(`unhandled ${String(never)}`);
    }
  }
}
