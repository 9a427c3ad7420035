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
 * A listener that ends by itself takes the instance with it: this thread ends too, and the
 * supervisor puts the instance in `error` with an alert, as for any actor that crashed, rather
 * than keep a receiver that takes only part of its port's connections.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { ActorThread, StartFailure } from '../../protocol/actor-thread.js';
import { AcceptRequest, ActorEvent, type Acceptance } from '../../protocol/core-protocol.js';
import type { As2Request } from '../../protocol/as2-protocol.js';
import { branchHandoff } from '../../protocol/handoff-protocol.js';
import type { CounterName, HistogramName, LabelsOf } from '../../protocol/metrics/catalog.js';
import type { CoreClient } from '../../protocol/worker-host/host.js';
import type { ActorStartData } from '../../protocol/worker-host/start-data.js';

/** How long a listener thread may take to start; the supervisor's own start deadline is longer. */
const listenerStartMs = 12_000;
/** How long a terminated listener thread may take to end. */
const listenerEndMs = 2_000;

export class ListenerThreads {
  private constructor(
    private readonly threads: ActorThread[],
    private readonly stopping: { now: boolean },
  ) {}

  /**
   * Starts `count` more listener threads of the receiver `start` describes; resolves once every
   * one listens. When one fails, those started are stopped and the error is the one it gave.
   */
  static async start(
    count: number,
    entry: URL,
    start: ActorStartData,
    core: CoreClient,
    /** Called when a listener thread ended without being asked to (its reason). */
    onLost: (reason: string) => void,
  ): Promise<ListenerThreads> {
    // Set once stopping: a listener that ends then was asked to.
    const stopping = { now: false };
    const started = await Promise.allSettled(
      Array.from({ length: count }, (_, i) =>
        ActorThread.start({
          entry,
          workerData: { ...start, listener: i + 2 } satisfies ActorStartData,
          startTimeoutMs: listenerStartMs,
          endTimeoutMs: listenerEndMs,
          onRequest: (body) => answerFor(core, body),
          onEvent: (body) => passOn(core, body),
          onExit: ({ expected, reason }) => {
            if (!expected && !stopping.now) onLost(reason);
          },
        }),
      ),
    );
    const threads = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) {
      stopping.now = true;
      await Promise.all(threads.map((t) => t.stop(listenerEndMs)));
      throw failed.reason instanceof StartFailure
        ? failed.reason
        : new StartFailure('START_FAILED', String(failed.reason));
    }
    return new ListenerThreads(threads, stopping);
  }

  get count(): number {
    return this.threads.length;
  }

  /**
   * A channel to `target` for each listener thread, branched from this thread's own (the target
   * answers on each as on the one the supervisor made).
   */
  handOffTo(target: string, channel: MessagePort): void {
    for (const thread of this.threads) {
      const port = branchHandoff(channel, new MessageChannel());
      thread.event({ type: 'handoff_to', target, port }, [port]);
    }
  }

  /** Stops every listener thread (each drains as this one does) within `withinMs`. */
  async stop(withinMs = listenerEndMs * 5): Promise<void> {
    this.stopping.now = true;
    await Promise.all(this.threads.map((t) => t.stop(withinMs)));
  }
}

/** A listener's question, asked of the supervisor by this thread. */
async function answerFor(core: CoreClient, body: unknown): Promise<unknown> {
  const accept = AcceptRequest.safeParse(body);
  if (accept.success) {
    const accepted: Acceptance[] = await Promise.all(accept.data.messages.map((m) => core.accept(m)));
    return { type: 'accepted', accepted };
  }
  // The supervisor checks the question; this thread checks its answer against it (host.ts).
  return core.ask(body as As2Request);
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
