/**
 * The flow's commands an actor runs itself, on connections of its own: whoever holds the work
 * runs the command (docs/architecture.md). A target claims its deliveries and records their
 * results here, without relaying through the main thread: that relay (target → main → PostgreSQL
 * → main → target, twice per delivery) cost more CPU than the statements themselves. A source
 * (the AS2 receiver, the file poller) records its acceptances here, for the same reason.
 *
 * This file is the one door of flow/ for actors/ (eslint.config.js).
 */
import type { Acceptance, DeliveryResult, OfferedMessage } from '../protocol/core-protocol.js';
import { FlowConnections } from '../storage/flow-connections.js';
import { direct, inTx, pgArray } from '../storage/sql.js';
import { claimBatch, type Claimed } from './commands/claim-deliveries.js';
import {
  releaseBatch,
  recordResultsAndClaim,
  type DeliveryEnd,
  type ResultItem,
} from './commands/record-results.js';
import { acceptAtOnce, acceptanceOf, acceptedLine, type AcceptItem } from './commands/accept.js';
import { FlowConfig } from './commands/flow-config.js';
import { planAcceptance } from './commands/accept-plan.js';
import { handedLeftover, requeueHanded, type LeftoverOutcome } from './commands/handed.js';
import type { RetryPolicy } from './tables/schedule.js';
import { countAccepted } from './flow-metrics.js';
import { noMetrics, type MetricsPort } from '../protocol/metrics/port.js';
import { setPoolProbe } from '../protocol/metrics/pool-probe.js';
import { realNow } from '../protocol/clock.js';
import { limits } from '../limits/limits.js';

/** This thread's flow connections, open ones only: the metrics batch carries their sum. */
const threadPools = new Set<FlowConnections>();
setPoolProbe(() => {
  const sum = { in_use: 0, idle: 0, waiting: 0 };
  for (const pool of threadPools) {
    const u = pool.usage;
    sum.in_use += u.inUse;
    sum.idle += u.idle;
    sum.waiting += u.waiting;
  }
  return sum;
});

function openPool(access: FlowAccess, max: number): FlowConnections {
  const pool = new FlowConnections(
    { url: access.database_url, applicationName: access.application_name },
    max,
  );
  threadPools.add(pool);
  return pool;
}

function closePool(pool: FlowConnections): Promise<void> {
  threadPools.delete(pool);
  return pool.close();
}

export { deliveryEndLine, type DeliveryEnd } from './commands/record-results.js';
export type { LeftoverOutcome } from './commands/handed.js';
export { countDeliveryEnd } from './flow-metrics.js';
export type { Claimed } from './commands/claim-deliveries.js';
export { isDatabaseAway } from '../storage/outage-log.js';
export { retryPolicyOf } from './tables/schedule.js';

/** Where an actor's flow connections go, and under which names (protocol/worker-host/start-data.ts). */
export interface FlowAccess {
  database_url: string;
  /** The process's node number: claims are marked with it, so a dead process's are found. */
  node: number;
  /** The connections' application_name, by which the supervisor ends them with their thread. */
  application_name: string;
}

export class TargetCommands {
  readonly #flow: FlowConnections;

  constructor(
    private readonly access: FlowAccess,
    private readonly target: string,
    private readonly policy: RetryPolicy,
    /** The thread's clock: the real one, or a test's given in its start data (protocol/clock.ts). */
    private readonly now: () => Date = realNow,
  ) {
    this.#flow = openPool(access, limits.connectionsPerTarget);
  }

  /** Claims up to `limit` queued deliveries of this target (flow/commands/record-results.ts, claimBatch). */
  claim(limit: number): Promise<Claimed> {
    return claimBatch(direct(this.#flow), this.now(), this.access.node, this.target, limit);
  }

  /**
   * Records results: plain successes in one statement, anything else in a transaction (with
   * the alerts a failure raises). Per result, whether its claim was still current; the
   * deliveries that ended, for the log. With `claimLimit`, up to that many of the target's
   * next deliveries are claimed along (in the results' statement when it takes them).
   */
  async record(
    results: DeliveryResult[],
    claimLimit = 0,
  ): Promise<{ applied: boolean[]; ended: DeliveryEnd[]; claimed: Claimed | null }> {
    const at = this.now();
    const items: ResultItem[] = results.map((r) => ({ ...r, target: this.target, policy: this.policy }));
    const ended: DeliveryEnd[] = [];
    const claim =
      claimLimit > 0 ? { node: this.access.node, target: this.target, limit: claimLimit } : undefined;
    const { applied, claimed } = await recordResultsAndClaim(this.#flow, at, items, ended, claim);
    return { applied, ended, claimed };
  }

  /**
   * Gives back the deliveries this target's process holds that the thread does not know of: a
   * claim whose connection broke may have committed in PostgreSQL with its answer lost, and
   * those deliveries would stay `delivering` under a live node, where no sweep takes them.
   */
  async releaseLost(inHand: readonly number[], reason: string): Promise<number> {
    const lost = await direct(this.#flow).all<{ id: string; claims: number }>(
      `select id, claims from delivery
        where target = ? and claimed_by = ? and state = 'delivering' and not (id = any(?::bigint[]))`,
      [this.target, this.access.node, pgArray([...inHand])],
    );
    if (lost.length === 0) return 0;
    const claims = lost.map((d) => ({ delivery_id: Number(d.id), claim: d.claims }));
    await inTx(this.#flow, (tx) => releaseBatch(tx, this.now(), claims, reason));
    return lost.length;
  }

  /** A handed delivery of this target whose file was not named: queued again (flow/commands/handed.ts). */
  requeueHanded(messageId: string, reason: string): Promise<boolean> {
    return inTx(this.#flow, (tx) =>
      requeueHanded(tx, this.now(), messageId, this.target, this.access.node, reason),
    );
  }

  /**
   * Handed deliveries of this target whose files have their names: recorded delivered, as the
   * result of the claim the acceptance made for them (claim 1), with `detail` as the history line.
   */
  recordHanded(
    named: readonly { delivery_id: number; detail: string }[],
  ): Promise<{ applied: boolean[]; ended: DeliveryEnd[] }> {
    return this.record(
      named.map(({ delivery_id, detail }) => ({ delivery_id, claim: 1, outcome: { ok: true, detail } })),
    );
  }

  /** A handed file of node `node` that nobody holds (flow/commands/handed.ts, handedLeftover). */
  handedLeftover(messageId: string, node: number, reason: string): Promise<LeftoverOutcome> {
    const leftover = { messageId, target: this.target, node, self: this.access.node };
    return inTx(this.#flow, (tx) => handedLeftover(tx, this.now(), leftover, reason));
  }

  close(): Promise<void> {
    return closePool(this.#flow);
  }
}

/** Where an offered message would go and between whom, as its acceptance would plan it now. */
export interface PlannedWay {
  targets: string[];
  from: string;
  to: string;
}

/** The operator's line for an accepted or refused message, written once it committed. */
export type AcceptedLine = (msg: string, fields: Record<string, unknown>) => void;

export class SourceCommands {
  readonly #flow: FlowConnections;
  /** The parties and routes this source's acceptances plan from (flow/commands/flow-config.ts). */
  readonly #config = new FlowConfig();

  constructor(
    private readonly access: FlowAccess,
    private readonly source: { type: string; name: string },
    private readonly line: AcceptedLine,
    private readonly metrics: MetricsPort = noMetrics,
    /** The thread's clock: the real one, or a test's given in its start data (protocol/clock.ts). */
    private readonly now: () => Date = realNow,
  ) {
    this.#flow = openPool(access, limits.connectionsPerSource);
  }

  /**
   * Accepts and dispatches these messages (flow/commands/accept.ts, acceptAtOnce). The targets of the new deliveries are told by the acceptance's own NOTIFY,
   * sent untagged: this process's listener hears it like another process's and pokes the
   * targets' actors here (runtime/runtime.ts). That notice is sent to every listening process
   * anyway; untagged, it costs nothing more than the echo this process used to ignore, where an
   * event to the core carrying the targets needed a message of its own and a new kind of event.
   */
  async accept(messages: OfferedMessage[]): Promise<Acceptance[]> {
    // Loops, not callbacks made per batch: V8 compiles such a callback again after each
    // collection (docs/decisions/no-callbacks-made-per-call-on-the-message-path.md).
    const items: AcceptItem[] = [];
    for (const message of messages)
      items.push({ source_type: this.source.type, source_name: this.source.name, message });
    const { outcomes } = await acceptAtOnce(
      this.#flow,
      this.now(),
      this.access.node,
      items,
      this.#config,
      'all',
    );
    for (let i = 0; i < items.length; i++) {
      const line = acceptedLine(items[i]!, outcomes[i]);
      if (line) this.line(line.msg, line.fields);
      countAccepted(this.metrics, items[i]!, outcomes[i]);
    }
    return outcomes.map(acceptanceOf);
  }

  /** Which of these messages are stored: an acceptance whose answer was lost may have committed. */
  async storedOf(ids: readonly string[]): Promise<string[]> {
    const rows = await direct(this.#flow).all<{ id: string }>(
      'select id::text as id from message where id = any(?::uuid[])',
      [pgArray([...ids])],
    );
    return rows.map((r) => r.id);
  }

  /**
   * The targets and parties this message's acceptance would have, planned from what this source
   * read last (flow-config.ts), without a statement; null when it has not read every name yet.
   * A source hands the document to those targets before it offers the message; its acceptance
   * then plans again from what is current, and a target it no longer names gets nothing.
   */
  plan(message: OfferedMessage): PlannedWay | null {
    const known = this.#config.known([message.from, message.to]);
    if (!known) return null;
    const item = { source_type: this.source.type, source_name: this.source.name, message };
    const plan = planAcceptance([item], known.kinds, known.routes, known.directory);
    const planned = plan.messages[0]!;
    if (planned.refusal !== null) return { targets: [], from: planned.from_party, to: planned.to_party };
    return { targets: plan.deliveries.map((d) => d.target), from: planned.from_party, to: planned.to_party };
  }

  /** A handed delivery whose target did not name its file: queued again (flow/commands/handed.ts). */
  requeueHanded(messageId: string, target: string, reason: string): Promise<boolean> {
    return inTx(this.#flow, (tx) =>
      requeueHanded(tx, this.now(), messageId, target, this.access.node, reason),
    );
  }

  close(): Promise<void> {
    return closePool(this.#flow);
  }
}
