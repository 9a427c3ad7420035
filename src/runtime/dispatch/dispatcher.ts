/**
 * The dispatcher owns the message flow in PostgreSQL for its process: it answers actors
 * (accept, claim, result, release), dispatches accepted messages, runs the timed sweeps,
 * and takes operator actions. Writes from many actors are grouped into few transactions.
 */
import type { Logger } from 'pino';
import type { Orm } from '../../storage/db.js';
import type {
  AcceptRequest,
  AcceptResponse,
  ClaimedDelivery,
  ResultRequest,
} from '../channels/core-protocol.js';
import type { ActorCore, HeldClaim, InstanceRef } from '../supervisor/core-port.js';
import { acceptBatch, type AcceptItem, type AcceptOutcome } from './accept.js';
import { Batcher } from './batcher.js';
import { claimBatch, releaseBatch, resultBatch, type ResultItem } from './claims.js';
import { dispatchBatch } from './dispatch.js';
import { redeliver, redispatch } from './redo.js';
import { retryPolicyOf } from './schedule.js';
import { orphanedClaims, retriesDue, stallSchedule, undispatched } from './sweeps.js';
import { inTx } from './tx.js';

export interface DispatcherOptions {
  orm: Orm;
  /** This process's node number (its presence lock). */
  node: number;
  now: () => Date;
  logger: Logger;
  /** Settings delivery_max_dispatches, read at start. */
  maxDispatches: number;
  /** Deliveries were queued for these targets by this process. */
  onWork(targets: string[]): void;
}

/** Milliseconds between two runs of the retry and stall sweeps. */
const tickMs = 1000;
/** Every this many ticks, dead processes' claims and undispatched messages are looked for. */
const recoveryEveryTicks = 5;
/** An accepted message younger than this is left to the process that accepted it. */
const dispatchGraceMs = 2000;

export class Dispatcher implements ActorCore {
  readonly #o: DispatcherOptions;
  readonly #accepts: Batcher<AcceptItem, AcceptOutcome>;
  readonly #dispatches: Batcher<string, void>;
  readonly #results: Batcher<ResultItem, boolean>;
  #timer: NodeJS.Timeout | undefined;
  #ticks = 0;
  #ticking: Promise<void> | undefined;

  constructor(options: DispatcherOptions) {
    this.#o = options;
    const { orm } = options;
    this.#accepts = new Batcher((items) =>
      inTx(orm, (tx) => acceptBatch(tx, this.#o.now(), this.#o.node, items)),
    );
    this.#dispatches = new Batcher(async (ids) => {
      const targets = await inTx(orm, (tx) => dispatchBatch(tx, this.#o.now(), ids));
      this.#o.onWork(targets);
      return ids.map(() => undefined);
    });
    this.#results = new Batcher((items) => inTx(orm, (tx) => resultBatch(tx, this.#o.now(), items)));
  }

  /** Accepts a message; dispatching follows without the source waiting for it. */
  async accept(source: InstanceRef, message: AcceptRequest['message']): Promise<AcceptResponse> {
    const outcome = await this.#accepts.submit({
      source_type: source.type,
      source_name: source.name,
      message,
    });
    if (outcome.toDispatch) {
      this.#dispatches.submit(outcome.message_id).catch((error: unknown) => {
        // The sweep of undispatched messages picks it up.
        this.#o.logger.warn({ err: error, message_id: outcome.message_id }, 'dispatch failed; will retry');
      });
    }
    return {
      type: 'accepted',
      message_id: outcome.message_id,
      duplicate: outcome.duplicate,
      status: outcome.status,
    };
  }

  /** Accepts a message sent by hand and dispatches it before answering. */
  async acceptAndDispatch(item: AcceptItem): Promise<AcceptOutcome> {
    const outcome = await this.#accepts.submit(item);
    if (outcome.toDispatch) await this.#dispatches.submit(outcome.message_id);
    return outcome;
  }

  claim(target: InstanceRef, limit: number): Promise<ClaimedDelivery[]> {
    return inTx(this.#o.orm, (tx) => claimBatch(tx, this.#o.now(), this.#o.node, target.name, limit));
  }

  result(target: InstanceRef, result: ResultRequest): Promise<boolean> {
    return this.#results.submit({
      target: target.name,
      delivery_id: result.delivery_id,
      claim: result.claim,
      outcome: result.outcome,
      policy: retryPolicyOf(target.settings),
    });
  }

  async release(_target: InstanceRef, claims: HeldClaim[], reason: string): Promise<void> {
    const targets = await inTx(this.#o.orm, (tx) => releaseBatch(tx, this.#o.now(), claims, reason));
    this.#o.onWork(targets);
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
    this.#o.onWork(targets);
    return changed;
  }

  async redeliver(messageId: string, deliveryId: number, actor: string): Promise<void> {
    await inTx(this.#o.orm, (tx) => redeliver(tx, this.#o.now(), messageId, deliveryId, actor));
    const [row] = await this.#o.orm.em
      .getConnection()
      .execute<{ target: string }[]>('select target from delivery where id = ?', [deliveryId]);
    if (row) this.#o.onWork([row.target]);
  }

  /**
   * One round of timed work. Tests call it directly with their own clock; the process runs
   * it every second. `recovery` adds the search for dead claims and undispatched messages.
   */
  async tick(recovery = true): Promise<void> {
    const { orm, now, node } = this.#o;
    const run = async <T>(what: string, work: () => Promise<T>): Promise<T | undefined> => {
      try {
        return await work();
      } catch (error) {
        this.#o.logger.error({ err: error }, `dispatcher: ${what} failed`);
        return undefined;
      }
    };
    const announced: string[] = [];
    announced.push(...((await run('retries', () => inTx(orm, (tx) => retriesDue(tx, now())))) ?? []));
    const stall = await run('stall schedule', () =>
      inTx(orm, (tx) => stallSchedule(tx, now(), this.#o.maxDispatches)),
    );
    announced.push(...(stall?.announced ?? []));
    if (recovery) {
      announced.push(
        ...((await run('dead claims', () => inTx(orm, (tx) => orphanedClaims(tx, now(), node)))) ?? []),
      );
      announced.push(
        ...((await run('undispatched', () => inTx(orm, (tx) => undispatched(tx, now(), dispatchGraceMs)))) ??
          []),
      );
    }
    if (announced.length > 0) this.#o.onWork([...new Set(announced)]);
  }

  /** Before actors start: take back dead processes' claims and dispatch what was left accepted. */
  async recover(): Promise<void> {
    const { orm, now, node } = this.#o;
    const targets = [
      ...(await inTx(orm, (tx) => orphanedClaims(tx, now(), node))),
      ...(await inTx(orm, (tx) => undispatched(tx, now(), 0))),
    ];
    this.#o.onWork(targets);
  }

  startTimers(): void {
    this.#timer = setInterval(() => {
      if (this.#ticking) return;
      const recovery = ++this.#ticks % recoveryEveryTicks === 0;
      this.#ticking = this.tick(recovery).finally(() => (this.#ticking = undefined));
    }, tickMs);
    this.#timer.unref();
  }

  /** Waits until every submitted accept, dispatch and result is written. */
  async idle(): Promise<void> {
    await Promise.all([this.#accepts.idle(), this.#dispatches.idle(), this.#results.idle()]);
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#ticking;
    await this.idle();
  }
}
