/**
 * Where a target claims its deliveries and records their results: on its own database
 * connections through the flow's commands, reading the clock its start data names (the real
 * one, or a test's: protocol/clock.ts). A report records a batch of results at once and may claim the target's next deliveries
 * along (result-reporter.ts says when).
 */
import {
  TargetCommands,
  countDeliveryEnd,
  deliveryEndLine,
  retryPolicyOf,
  type Claimed,
  type LeftoverOutcome,
} from '../../flow/actor-commands.js';
import type { ClaimedDelivery, DeliveryOutcome } from '../../protocol/core-protocol.js';
import { InitError, type CoreClient } from '../../protocol/worker-host/host.js';
import { clockOf } from '../../protocol/clock.js';
import type { ActorStartData } from '../../protocol/worker-host/start-data.js';

export type { Claimed, LeftoverOutcome } from '../../flow/actor-commands.js';

/** A delivery's result as the target reports it. */
export interface Reported {
  delivery: ClaimedDelivery;
  outcome: DeliveryOutcome;
}

/** Per result, whether its claim was still current; what a claim along brought, if one was asked. */
export interface Recorded {
  applied: boolean[];
  claimed: Claimed | null;
}

export type DeliveryPort = Pick<CoreClient, 'log' | 'database'> & {
  claim(limit: number): Promise<Claimed>;
  /** Records the results together; with `claimLimit` above 0, claims up to that many along. */
  record(results: Reported[], claimLimit: number): Promise<Recorded>;
  /** Gives back deliveries claimed for this thread that it does not hold (a claim's answer lost). */
  releaseLost?(inHand: readonly number[]): Promise<void>;
  /**
   * Deliveries handed to this target by a source (protocol/handoff-protocol.ts) whose files have
   * their names: recorded delivered, with their log lines and counts as a delivery recorded here
   * has them. Per delivery, whether the acceptance's claim was still current.
   */
  recordHanded?(named: readonly { delivery_id: number; detail: string }[]): Promise<boolean[]>;
  /** A handed delivery of this target whose file was not named: queued again; false when it was not held. */
  requeueHanded?(messageId: string, reason: string): Promise<boolean>;
  /** A handed file of node `node` that nobody here holds: what became of its delivery. */
  handedLeftover?(messageId: string, node: number, reason: string): Promise<LeftoverOutcome>;
  /** Closes what the port opened; after the loop stopped. */
  close(): Promise<void>;
};

/** Counts each attempt for the process's metrics: its outcome, and whether it was a retry. */
function countAttempts(core: CoreClient, target: string, results: Reported[]): void {
  for (const { delivery, outcome } of results) {
    const result = outcome.ok ? 'ok' : outcome.retryable ? 'retryable_failure' : 'permanent_failure';
    core.metrics.count('pier_delivery_attempts_total', { target, outcome: result });
    if (delivery.attempt > 1) core.metrics.count('pier_delivery_retries_total', { target });
  }
}

export function deliveryPort(start: ActorStartData, core: CoreClient): DeliveryPort {
  if (!start.flow)
    throw new InitError('NO_FLOW', 'a target needs its database connections, and was given none');
  const commands = new TargetCommands(
    start.flow,
    start.name,
    retryPolicyOf(start.settings),
    clockOf(start.clock),
  );
  return {
    claim: (limit) => commands.claim(limit),
    record: async (results, claimLimit) => {
      countAttempts(core, start.name, results);
      const { applied, ended, claimed } = await commands.record(
        results.map((r) => ({
          delivery_id: r.delivery.delivery_id,
          claim: r.delivery.claim,
          outcome: r.outcome,
        })),
        claimLimit,
      );
      for (const end of ended) {
        const line = deliveryEndLine(end);
        core.log(line.level, line.msg, line.fields);
        countDeliveryEnd(core.metrics, end);
      }
      return { applied, claimed };
    },
    log: core.log,
    database: core.database,
    recordHanded: async (named) => {
      const { applied, ended } = await commands.recordHanded(named);
      for (const end of ended) {
        core.metrics.count('pier_delivery_attempts_total', { target: start.name, outcome: 'ok' });
        const line = deliveryEndLine(end);
        core.log(line.level, line.msg, line.fields);
        countDeliveryEnd(core.metrics, end);
      }
      return applied;
    },
    requeueHanded: (messageId, reason) => commands.requeueHanded(messageId, reason),
    handedLeftover: (messageId, node, reason) => commands.handedLeftover(messageId, node, reason),
    releaseLost: async (inHand) => {
      const released = await commands.releaseLost(
        inHand,
        'its claim was answered while the database connection broke',
      );
      if (released > 0) core.log('info', 'gave back deliveries a broken claim had taken', { released });
    },
    close: () => commands.close(),
  };
}
