/**
 * An instance's second and later threads, started and kept by its first one (the thread the
 * supervisor started): a receiver's listeners (actors/as2-receiver/listeners.ts), a file
 * writer's (actors/file-writer/threads.ts) or an AS2 sender's threads. Each runs the instance's own
 * worker.ts with `thread` set (its number, 2 and up), with its own database connections under the
 * instance's connection name, so a stop or a crash of the instance ends them with it. To them the first thread is the
 * supervisor: it speaks the actor protocol with them (protocol/actor-thread.ts) and passes on to
 * the real one what they ask and tell (questions, log lines with their `thread`, outages, counts),
 * so the supervisor still sees one instance with one thread. Per message nothing crosses the first
 * thread unless it logs at the process's level.
 *
 * The instance is ready once its first thread is; the others start meanwhile and take work as
 * each comes up. One that fails to start or ends by itself takes the instance with it (`onLost`):
 * the first thread ends too, and the supervisor puts the instance in `error` with an alert, as for
 * any actor that crashed, rather than keep an instance that does only part of its work.
 */
import type { TransferListItem } from 'node:worker_threads';
import { ActorThread, StartFailure } from '../../protocol/actor-thread.js';
import { ActorEvent } from '../../protocol/core-protocol.js';
import type { As2Request } from '../../protocol/as2-protocol.js';
import type { HostEvent } from '../../protocol/host-protocol.js';
import type { CounterName, HistogramName, LabelsOf } from '../../protocol/metrics/catalog.js';
import type { CoreClient } from '../../protocol/worker-host/host.js';
import type { ActorStartData } from '../../protocol/worker-host/start-data.js';
import { limits } from '../../limits/limits.js';

/** What a thread is told, made for each thread (a channel of its own moves with it). */
export type Told = () => { body: HostEvent; transfer?: TransferListItem[] };

export class InstanceThreads {
  /** Those that work, by number. */
  readonly #threads = new Map<number, ActorThread>();
  /** What every thread is given, those that start later too, by what it is for. */
  readonly #given = new Map<unknown, Told>();
  /** Every one from its spawn to its end, starting ones included: a stop ends those too. */
  readonly #spawned = new Set<ActorThread>();
  #stopping = false;
  /** Settles once every thread started or failed to. */
  readonly started: Promise<void>;

  /**
   * Starts `count` more threads of the instance `start` describes, in the background. `onLost`
   * is called when one fails to start or ends without being asked to: the instance then stops
   * being one (its worker ends the first thread).
   */
  constructor(
    count: number,
    entry: URL,
    start: ActorStartData,
    core: CoreClient,
    onLost: (reason: string) => void,
  ) {
    const one = (number: number) =>
      ActorThread.start({
        entry,
        workerData: { ...start, thread: number } satisfies ActorStartData,
        startTimeoutMs: limits.instanceThreadStartMs,
        endTimeoutMs: limits.instanceThreadEndMs,
        threads: this.#spawned,
        // A thread's question (AS2 profiles, keys, records), passed to the supervisor, which checks
        // it; claims, results and acceptances never come here, each thread has its own connections.
        onRequest: (body) => core.ask(body as As2Request),
        onEvent: (body) => passOn(core, body, number),
        onExit: ({ expected, reason }) => {
          if (!expected && !this.#stopping) onLost(`thread ${number} ended: ${reason}`);
        },
      }).then(
        (thread) => {
          if (this.#stopping) return void thread.terminate();
          this.#threads.set(number, thread);
          for (const told of this.#given.values()) tell(thread, told);
        },
        (error: unknown) => {
          if (!this.#stopping)
            onLost(
              `thread ${number} did not start: ${error instanceof StartFailure ? error.message : String(error)}`,
            );
        },
      );
    this.started = Promise.all(Array.from({ length: count }, (_, i) => one(i + 2))).then(() => {});
  }

  /**
   * The instance's other threads when `start` is its first thread (no `thread` set) and it runs on
   * `threads`: null on the others and with one. Once all work, the first logs `working` (`sending
   * on 2 threads`); when one is lost, `lost`, and the instance ends (endInstance).
   */
  static startOthers<T extends InstanceThreads>(
    this: new (...args: ConstructorParameters<typeof InstanceThreads>) => T,
    threads: number,
    entry: URL,
    start: ActorStartData,
    core: CoreClient,
    lines: { working: string; lost: string },
  ): T | null {
    if (start.thread !== undefined || threads <= 1) return null;
    const others = new this(threads - 1, entry, start, core, endInstance(core, lines.lost));
    void others.started.then(() => {
      if (others.count === threads - 1) core.log('info', lines.working);
    });
    return others;
  }

  /** Threads that work now, the first not counted. */
  get count(): number {
    return this.#threads.size;
  }

  /** Tells every thread that works now what the supervisor told the first (work). */
  tell(told: Told): void {
    for (const thread of this.#threads.values()) tell(thread, told);
  }

  /** Deliveries are queued for the instance: each thread claims its share. */
  work(): void {
    this.tell(() => ({ body: { type: 'work' } }));
  }

  /**
   * Gives every thread, now and as each starts later, what `told` makes for it (a hand-off
   * channel of its own), under `key` until `forget(key)`; a new one under the same key replaces it.
   */
  give(key: unknown, told: Told): void {
    this.#given.set(key, told);
    this.tell(told);
  }

  forget(key: unknown): void {
    this.#given.delete(key);
  }

  /** Stops every thread (each drains as the first does) within `withinMs`; ends those starting. */
  async stop(withinMs = limits.instanceThreadEndMs * 5): Promise<void> {
    this.#stopping = true;
    const working = new Set(this.#threads.values());
    await Promise.all([...this.#spawned].map((t) => (working.has(t) ? t.stop(withinMs) : t.terminate())));
  }
}

function tell(thread: ActorThread, told: Told): void {
  const { body, transfer } = told();
  thread.event(body, transfer);
}

/** Thread `number`'s event, told to the supervisor by the first thread. */
function passOn(core: CoreClient, body: unknown, number: number): void {
  const event = ActorEvent.safeParse(body);
  if (!event.success) return;
  const e = event.data;
  switch (e.type) {
    case 'log':
      // Which thread said it: the operator's way to see the work spread (the first's lines have none).
      return core.log(e.level, e.msg, { ...e.fields, thread: number });
    case 'storage':
      return core.storage(e.ok, e.problem);
    case 'reach':
      return core.reach(e.ok, e.partner, e.error);
    case 'host_key':
      return core.hostKeyChanged(e.server, e.presented, e.pinned);
    case 'database':
      return core.database(e.ok, e.what, e.error);
    case 'metrics':
      // Counted again in this thread's tally, sent with its own. The other thread's connection pool
      // (e.batch.pool) is left out: the gauges are per thread, and the first's stand for the instance.
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

/**
 * What the first thread does when one of the others is lost: says so (`msg`) and ends, and with it
 * the instance; the supervisor puts it in `error` and raises its alert.
 */
export function endInstance(core: CoreClient, msg: string): (reason: string) => void {
  return (reason) => {
    core.log('error', msg, { reason });
    setImmediate(() => process.exit(1));
  };
}
