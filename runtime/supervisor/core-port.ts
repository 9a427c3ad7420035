/**
 * What the supervisor needs from the core for its actors: give back what a thread held, and
 * answer the AS2 actors' and the notifiers' questions. Targets and sources run the flow's
 * commands themselves (flow/actor-commands.ts). Kept as an interface so the supervisor's own
 * tests give it only what they watch.
 */
import type { PluginType } from '../../actors/index.js';
import type { As2Request, As2Response } from '../../protocol/as2-protocol.js';
import type { NotifyRequest, NotifyResponse } from '../../protocol/notify-protocol.js';

export interface InstanceRef {
  type: PluginType;
  name: string;
  /** The settings the instance started with (its retry settings, among others). */
  settings: Record<string, unknown>;
}

export interface ActorCore {
  /**
   * Gives back what a target's thread held (its connections named `applicationName`) when it
   * stopped or crashed: its connections are ended first, so none of its statements claims after
   * the release; the deliveries are queued again.
   */
  releaseHeldBy(target: InstanceRef, applicationName: string, reason: string): Promise<void>;
  /** The AS2 actors' questions (profiles, keys, records, receipts); absent where AS2 is not run. */
  as2?(instance: InstanceRef, request: As2Request): Promise<As2Response>;
  /** The notifiers' questions (notifications due, how sending went). */
  notify?(instance: InstanceRef, request: NotifyRequest): Promise<NotifyResponse>;
}
