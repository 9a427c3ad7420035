/**
 * What the supervisor needs from the core to answer its actors: the dispatcher implements
 * it. Kept as an interface so the supervisor runs without the database in its own tests.
 */
import type { PluginType } from '../../actors/index.js';
import type { As2Request, As2Response } from '../../protocol/as2-protocol.js';
import type { NotifyRequest, NotifyResponse } from '../../protocol/notify-protocol.js';
import type {
  Acceptance,
  ClaimedDelivery,
  DeliveryResult,
  OfferedMessage,
} from '../../protocol/core-protocol.js';

export interface InstanceRef {
  type: PluginType;
  name: string;
  /** The settings the instance started with (its retry settings, among others). */
  settings: Record<string, unknown>;
}

import type { HeldClaim } from '../../flow/commands/claims.js';

export type { HeldClaim };

export interface ActorCore {
  /** One acceptance per message, in order. */
  accept(source: InstanceRef, messages: OfferedMessage[]): Promise<Acceptance[]>;
  /** Up to `limit` deliveries to hand out, none when nothing is queued; it does not wait for work. */
  claim(target: InstanceRef, limit: number): Promise<ClaimedDelivery[]>;
  /** Per result: whether its claim was still current. */
  result(target: InstanceRef, results: DeliveryResult[]): Promise<boolean[]>;
  /** Gives back deliveries an instance held when it stopped or crashed: they are queued again. */
  release(target: InstanceRef, claims: HeldClaim[], reason: string): Promise<void>;
  /**
   * Gives back what a thread that claimed on its own connections (named `applicationName`)
   * held: its connections are ended first, so none of its statements claims after the release.
   */
  releaseHeldBy?(target: InstanceRef, applicationName: string, reason: string): Promise<void>;
  /** The AS2 actors' questions (profiles, keys, records, receipts); absent where AS2 is not run. */
  as2?(instance: InstanceRef, request: As2Request): Promise<As2Response>;
  /** The notifiers' questions (notifications due, how sending went). */
  notify?(instance: InstanceRef, request: NotifyRequest): Promise<NotifyResponse>;
}
