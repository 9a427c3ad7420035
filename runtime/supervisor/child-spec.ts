/**
 * How the supervisor treats its children, as data (after OTP's child specs). There is no
 * automatic restart: an instance that fails stays in `error`, with an alert, until an
 * operator acts (spec 3.4), so a delivery that crashes its actor cannot loop.
 */
import type { PluginRole } from '../../actors/index.js';

export interface ChildSpec {
  /** Milliseconds a new thread may take to answer ready. */
  startTimeoutMs: number;
  /** Milliseconds a stopping actor may take to finish; then its thread is terminated. */
  shutdownTimeoutMs: number;
}

export const childSpecDefaults: ChildSpec = {
  startTimeoutMs: 30_000,
  shutdownTimeoutMs: 5_000,
};

/** Targets start first so nothing is accepted before it can be delivered; stop goes in reverse. */
export const startOrder: Record<PluginRole, number> = { target: 0, notifier: 1, source: 2 };
