/**
 * The dispatcher owns the main thread's part of the message flow in PostgreSQL: it accepts
 * messages sent by hand (grouped into few statements), gives back what an ended target held,
 * runs the timed sweeps and takes operator actions. Targets and sources run their own commands
 * on their own connections (flow/actor-commands.ts).
 */
import type { Logger } from 'pino';
import type { Orm } from '../../storage/db.js';
import { inlineChars } from '../../protocol/core-protocol.js';
import type { ActorCore, InstanceRef } from '../supervisor/core-port.js';
import { acceptAtOnce, type AcceptItem, type AcceptOutcome } from '../../flow/commands/accept.js';
import { FlowConfig } from '../../flow/commands/flow-config.js';
import { acceptNumbered, type Numbering } from '../../flow/commands/accept-numbered.js';
import type { ControlBlock } from '../../storage/repositories/control-numbers.js';
import type { AckDeadlines } from '../../flow/commands/acks.js';
import { Batcher } from '../../protocol/batcher.js';
import { releaseBatch, type HeldClaim } from '../../flow/commands/record-results.js';
import { FlowConnections } from '../../storage/flow-connections.js';
import { OutageLog } from '../../storage/outage-log.js';
import { logAccepted, logDeliveryEnd } from './log-lines.js';
import { redeliver, redispatch } from '../../flow/commands/redo.js';
import {
  orphanedClaims,
  retriesDue,
  stallSchedule,
  undispatched,
  unnamedHanded,
} from '../../flow/commands/sweeps.js';
import { direct, inTx } from '../../flow/tx.js';
import { noMetrics, type MetricsPort } from '../../protocol/metrics/port.js';
import { inEntityTx } from '../../storage/sql.js';
import { limits } from '../../limits/limits.js';

export interface DispatcherOptions {
  orm: Orm;
  /** This process's node number (its presence lock). */
  node: number;
  now: () => Date;
  logger: Logger;
  /** Settings delivery_max_dispatches, read at start. */
  maxDispatches: number;
  /** Deliveries were queued for these targets and no claim of theirs waits here: tell their actors. */
  onWork(targets: string[]): void;
  /** Tells a database outage once for the process (storage/outage-log.ts). */
  outage?: OutageLog;
  /** The acknowledgement deadlines a protocol sets (AS2 receipt timeouts), watched on the recovery ticks. */
  ackDeadlines?: AckDeadlines;
  /** The process's metrics: acceptances and ended deliveries recorded here are counted. */
  metrics?: MetricsPort;
  /**
   * Whether other processes' free presence locks mean they are gone. After a database failover
   * no process holds its lock on the new primary until it reconnects; a sweep then would take
   * live processes' claims. Without it, always.
   */
  presenceSettled?: () => boolean;
}

export class Dispatcher implements Pick<ActorCore, 'releaseHeldBy'> {
  readonly #o: DispatcherOptions;
  /** The connections acceptances sent by hand run on (storage/flow-connections.ts). */
  readonly #flow: FlowConnections;
  readonly #accepts: Batcher<AcceptItem, AcceptOutcome>;
  /** The parties and routes acceptances plan from while they do not change (flow-config.ts). */
  readonly #config = new FlowConfig();
  /** Statements that failed while the database was away: logged once per outage. */
  readonly #outage: OutageLog;
  readonly #metrics: MetricsPort;
  #timer: NodeJS.Timeout | undefined;
  #ticks = 0;
  #ticking: Promise<void> | undefined;

  /** The main thread's flow connections in use, idle and waited for (metrics). */
  get flowPool(): FlowConnections['usage'] {
    return this.#flow.usage;
  }

  constructor(options: DispatcherOptions) {
    this.#o = options;
    this.#metrics = options.metrics ?? noMetrics;
    this.#outage = options.outage ?? new OutageLog(options.logger);
    const flow = (this.#flow = new FlowConnections(options.orm));
    // A message is dispatched in the statement that accepts it: a message sent by hand has
    // nothing left to do with it once it is stored. The targets of its deliveries are poked here, once it
    // committed; the statement's notice is for the other processes (accept.ts, `announce`).
    this.#accepts = new Batcher(
      async (items) => {
        const accepted = await acceptAtOnce(flow, this.#o.now(), this.#o.node, items, this.#config);
        this.#work(accepted.targets);
        const { outcomes } = accepted;
        items.forEach((item, i) => logAccepted(this.#o.logger, this.#metrics, item, outcomes[i]));
        return outcomes;
      },
      { weigh: (item) => inlineChars(item.message), maxWeight: limits.maxInlineCharsPerBatch },
    );
  }

  /** Accepts and dispatches a message sent by hand. */
  acceptAndDispatch(item: AcceptItem): Promise<AcceptOutcome> {
    return this.#accepts.submit(item);
  }

  /**
   * Accepts a message built with control numbers, taking them in the acceptance's transaction
   * (flow/commands/accept-numbered.ts): `make` builds and stores it with the numbers given. Not
   * batched with other acceptances: the counter rows stay locked while `make` runs, and a
   * batch would hold them for every message in it. On the process's pool, not the flow's few
   * connections: `make` stores up to 64 MiB while it holds its connection, and the flow's
   * acceptances and results must not wait for that.
   */
  async acceptNumbered(
    numbering: Numbering,
    make: (block: ControlBlock) => Promise<AcceptItem>,
  ): Promise<AcceptOutcome & { block: ControlBlock }> {
    let item: AcceptItem | undefined;
    const accepted = await inTx(this.#o.orm, (tx) =>
      acceptNumbered(tx, this.#o.now(), this.#o.node, numbering, async (block) => (item = await make(block))),
    );
    this.#work(accepted.targets);
    const outcome = accepted.outcomes[0]!;
    logAccepted(this.#o.logger, this.#metrics, item!, outcome);
    return { ...outcome, block: accepted.block };
  }

  /** Work for these targets (queued by this process, announced by another, or due again): their actors are told. */
  #work(targets: string[]): void {
    const tell = [...new Set(targets)];
    if (tell.length > 0) this.#o.onWork(tell);
  }

  /** Another process announced work for `target` (pier_work). */
  announced(target: string): void {
    this.#work([target]);
  }

  async #release(claims: HeldClaim[], reason: string): Promise<void> {
    const targets = await inTx(this.#o.orm, (tx) => releaseBatch(tx, this.#o.now(), claims, reason));
    this.#work(targets);
  }

  async releaseHeldBy(target: InstanceRef, applicationName: string, reason: string): Promise<void> {
    const db = direct(this.#o.orm);
    // A statement of the ended thread may still run in PostgreSQL (a thread ended by force does
    // not wait for its answers): ended with its connection, it is rolled back instead of
    // claiming after the release.
    await db.all(
      `select pg_terminate_backend(pid, 5000) from pg_stat_activity
        where application_name = ? and pid <> pg_backend_pid()`,
      [applicationName],
    );
    const held = await db.all<{ id: string; claims: number }>(
      `select id, claims from delivery where target = ? and claimed_by = ? and state = 'delivering'`,
      [target.name, this.#o.node],
    );
    if (held.length === 0) return;
    await this.#release(
      held.map((d) => ({ delivery_id: Number(d.id), claim: d.claims })),
      reason,
    );
  }

  async redispatch(messageId: string, actor: string): Promise<boolean> {
    let targets: string[] = [];
    const changed = await inTx(this.#o.orm, async (tx) => {
      const done = await redispatch(tx, this.#o.now(), messageId, actor);
      if (done) {
        const rows = await tx.all<{ target: string }>(
          "select target from delivery where message_id = ? and state = 'queued'",
          [messageId],
        );
        targets = rows.map((r) => r.target);
      }
      return done;
    });
    this.#work(targets);
    return changed;
  }

  async redeliver(messageId: string, deliveryId: number, actor: string): Promise<void> {
    await inTx(this.#o.orm, (tx) => redeliver(tx, this.#o.now(), messageId, deliveryId, actor));
    const [row] = await inEntityTx(this.#o.orm.em).all<{ target: string }>(
      'select target from delivery where id = ?',
      [deliveryId],
    );
    if (row) this.#work([row.target]);
  }

  /**
   * One round of timed work. Tests call it directly with their own clock; the process runs
   * it every second. `recovery` adds the search for dead claims and undispatched messages.
   */
  async tick(recovery = true): Promise<void> {
    const { orm, now, node } = this.#o;
    let failed = false;
    const run = async <T>(what: string, work: () => Promise<T>): Promise<T | undefined> => {
      try {
        return await work();
      } catch (error) {
        failed = true;
        this.#outage.failed(what, error);
        return undefined;
      }
    };
    const announced: string[] = [];
    announced.push(...((await run('retries', () => inTx(orm, (tx) => retriesDue(tx, now())))) ?? []));
    const stall = await run('stall schedule', () =>
      inTx(orm, (tx) => stallSchedule(tx, now(), this.#o.maxDispatches)),
    );
    announced.push(...(stall?.announced ?? []));
    for (const end of stall?.ended ?? []) logDeliveryEnd(this.#o.logger, this.#metrics, end);
    if (recovery && (this.#o.presenceSettled?.() ?? true)) {
      announced.push(
        ...((await run('dead claims', () => inTx(orm, (tx) => orphanedClaims(tx, now(), node)))) ?? []),
      );
      const unnamed = await run('unnamed handed files', () =>
        inTx(orm, (tx) => unnamedHanded(tx, now(), node, limits.handedUnnamedAfterMs)),
      );
      if (unnamed?.length)
        this.#o.logger.warn(
          { targets: unnamed },
          'took back handed deliveries whose file was not named in time; their targets write them from the queue',
        );
      announced.push(...(unnamed ?? []));
      announced.push(
        ...((await run('undispatched', () =>
          inTx(orm, (tx) => undispatched(tx, now(), limits.dispatchGraceMs)),
        )) ?? []),
      );
      const { ackDeadlines } = this.#o;
      if (ackDeadlines)
        await run('acknowledgement deadlines', () => inTx(orm, (tx) => ackDeadlines(tx, now())));
    }
    if (!failed) this.#outage.answered();
    if (announced.length > 0) this.#work(announced);
  }

  /**
   * Before actors start: take back dead processes' claims and dispatch what was left accepted.
   * Logged once when it found any (after a crash: a receipted document whose file had no name
   * yet is one of those claims, written again by its target from the payload store).
   */
  async recover(): Promise<void> {
    const { orm, now, node } = this.#o;
    const taken = await inTx(orm, (tx) => orphanedClaims(tx, now(), node));
    const dispatched = await inTx(orm, (tx) => undispatched(tx, now(), 0));
    if (taken.length > 0 || dispatched.length > 0)
      this.#o.logger.info(
        { targets_of_claims_taken_back: taken, targets_dispatched: dispatched },
        'took back the deliveries ended processes held and dispatched what they left accepted',
      );
    this.#work([...taken, ...dispatched]);
  }

  startTimers(): void {
    this.#timer = setInterval(() => {
      if (this.#ticking) return;
      const recovery = ++this.#ticks % limits.recoveryEveryTicks === 0;
      this.#ticking = this.tick(recovery).finally(() => (this.#ticking = undefined));
    }, limits.dispatchTickMs);
    this.#timer.unref();
  }

  /** Waits until every submitted acceptance is written. */
  async idle(): Promise<void> {
    await this.#accepts.idle();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#ticking;
    await this.idle();
    await this.#flow.close();
  }
}
