/**
 * Where a source records its acceptances: on its own database connection through the flow's
 * commands, reading the clock its start data names (the real one, or a test's:
 * protocol/clock.ts). Acceptances asked for while one is being written go together in the
 * next, within the limits of a batch of inline payloads.
 */
import { SourceCommands, type PlannedWay } from '../../flow/actor-commands.js';
import { Batcher } from '../../protocol/batcher.js';
import { inlineChars, type Acceptance, type OfferedMessage } from '../../protocol/core-protocol.js';
import { InitError, type CoreClient } from '../../protocol/worker-host/host.js';
import { clockOf } from '../../protocol/clock.js';
import type { ActorStartData } from '../../protocol/worker-host/start-data.js';
import { limits } from '../../limits/limits.js';

export type { PlannedWay } from '../../flow/actor-commands.js';

export interface AcceptancePort {
  /** Accepts and dispatches the message: its acceptance, once it committed. */
  accept(message: OfferedMessage): Promise<Acceptance>;
  /**
   * Where a message would go as its acceptance would plan it now, once this source has read the
   * names (SourceCommands.plan); else null.
   */
  plan(message: OfferedMessage): PlannedWay | null;
  /**
   * Which of these messages are stored, for stages kept after an acceptance whose answer was
   * lost (uncertain-stages.ts); null when this port cannot tell (every one is then kept).
   */
  storedOf(ids: readonly string[]): Promise<string[] | null>;
  /** A handed delivery whose target did not name its file: queued again (false: nothing to queue). */
  requeueHanded(messageId: string, target: string, reason: string): Promise<boolean>;
  /** Waits for the acceptances under way and closes what the port opened; after the source stopped. */
  close(): Promise<void>;
}

export function acceptancePort(start: ActorStartData, core: CoreClient): AcceptancePort {
  if (!start.flow)
    throw new InitError('NO_FLOW', 'a source needs its database connection, and was given none');
  const commands = new SourceCommands(
    start.flow,
    { type: start.type, name: start.name },
    (msg, fields) => core.log('info', msg, fields),
    core.metrics,
    clockOf(start.clock),
  );
  const accepts = new Batcher<OfferedMessage, Acceptance>((messages) => commands.accept(messages), {
    weigh: inlineChars,
    maxWeight: limits.maxInlineCharsPerBatch,
  });
  return {
    accept: (message) => accepts.submit(message),
    plan: (message) => commands.plan(message),
    storedOf: (ids) => commands.storedOf(ids),
    requeueHanded: (messageId, target, reason) => commands.requeueHanded(messageId, target, reason),
    close: async () => {
      await accepts.idle();
      await commands.close();
    },
  };
}

/** What a source speaks to: the core, and its acceptance port for its acceptances. */
export type SourceCore = CoreClient & Pick<AcceptancePort, 'accept'>;

/** The core a source speaks to, its acceptances going through `port`. */
export function withAcceptance(core: CoreClient, port: AcceptancePort): SourceCore {
  return { ...core, accept: port.accept };
}
