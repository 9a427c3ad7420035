/**
 * Where a target claims its deliveries and records their results: on its own database
 * connections through the flow's commands when the supervisor gave it access (a running
 * server), else through the core over its channel (a supervisor tested without a database).
 * Results reported in one synchronous run are recorded together, as the channel client does.
 */
import {
  TargetCommands,
  countDeliveryEnd,
  deliveryEndLine,
  retryPolicyOf,
} from '../../flow/actor-commands.js';
import { Batcher } from '../../protocol/batcher.js';
import {
  inlineChars,
  maxInlineCharsPerBatch,
  type ClaimedDelivery,
  type DeliveryOutcome,
  type DeliveryResult,
} from '../../protocol/core-protocol.js';
import type { CoreClient } from '../../protocol/worker-host/host.js';
import type { ActorStartData } from '../../protocol/worker-host/start-data.js';

/** What a claim brought, and whether more of the target's deliveries are still queued. */
export interface Claimed {
  deliveries: ClaimedDelivery[];
  more: boolean;
}

export type DeliveryPort = Pick<CoreClient, 'result' | 'log' | 'database'> & {
  claim(limit: number): Promise<Claimed>;
  /** Gives back deliveries claimed for this thread that it does not hold (a claim's answer lost). */
  releaseLost?(inHand: readonly number[]): Promise<void>;
  /** Closes what the port opened; after the loop stopped. */
  close(): Promise<void>;
};

/** Counts one attempt for the process's metrics: its outcome, and whether it was a retry. */
function countAttempt(
  core: CoreClient,
  target: string,
  delivery: ClaimedDelivery,
  outcome: DeliveryOutcome,
): void {
  const result = outcome.ok ? 'ok' : outcome.retryable ? 'retryable_failure' : 'permanent_failure';
  core.metrics.count('pier_delivery_attempts_total', { target, outcome: result });
  if (delivery.attempt > 1) core.metrics.count('pier_delivery_retries_total', { target });
}

export function deliveryPort(start: ActorStartData, core: CoreClient): DeliveryPort {
  if (!start.flow)
    return {
      // The core answers the deliveries alone: a full answer may have left more.
      claim: async (limit) => {
        const deliveries = await core.claim(limit);
        return { deliveries, more: deliveries.length >= limit };
      },
      result: (delivery, outcome) => {
        countAttempt(core, start.name, delivery, outcome);
        return core.result(delivery, outcome);
      },
      log: core.log,
      database: core.database,
      close: async () => {},
    };
  const commands = new TargetCommands(start.flow, start.name, retryPolicyOf(start.settings));
  const results = new Batcher<DeliveryResult, boolean>(
    async (list) => {
      const { applied, ended } = await commands.record(list);
      for (const end of ended) {
        const line = deliveryEndLine(end);
        core.log('info', line.msg, line.fields);
        countDeliveryEnd(core.metrics, end);
      }
      return applied;
    },
    { maxItems: 100, weigh: (r) => inlineChars(r.outcome), maxWeight: maxInlineCharsPerBatch },
  );
  return {
    claim: (limit) => commands.claim(limit),
    result: (delivery: ClaimedDelivery, outcome: DeliveryOutcome) => {
      countAttempt(core, start.name, delivery, outcome);
      return results.submit({ delivery_id: delivery.delivery_id, claim: delivery.claim, outcome });
    },
    log: core.log,
    database: core.database,
    releaseLost: async (inHand) => {
      const released = await commands.releaseLost(
        inHand,
        'its claim was answered while the database connection broke',
      );
      if (released > 0) core.log('info', 'gave back deliveries a broken claim had taken', { released });
    },
    close: async () => {
      await results.idle();
      await commands.close();
    },
  };
}
