/**
 * How the supervisor treats its children, as data (after OTP's child specs). There is no
 * automatic restart: an instance that fails stays in `error`, with an alert, until an
 * operator acts (docs/api/lifecycles.md#service-instance-status), so a delivery that crashes its actor cannot loop.
 *
 * Every lifecycle step has a deadline (docs/decisions/deadlines-of-lifecycle-steps.md): an
 * actor that misses one is terminated and its instance goes to `error`, so no instance can
 * hold up another, an API answer or the process's shutdown.
 */
import type { PluginRole } from '../../actors/index.js';

export interface ChildSpec {
  /** Milliseconds a new thread may take to answer ready; then it is terminated and the start fails. */
  startTimeoutMs: number;
  /** Milliseconds a stopping actor may take to finish; then its thread is terminated. */
  shutdownTimeoutMs: number;
  /** Milliseconds a terminated thread may take to end; then it is left behind and logged. */
  endTimeoutMs: number;
  /** Milliseconds a running actor may take to answer a question (a connection check). */
  checkTimeoutMs: number;
}

export const childSpecDefaults: ChildSpec = {
  startTimeoutMs: 15_000,
  shutdownTimeoutMs: 5_000,
  endTimeoutMs: 2_000,
  // Above the AS2 sender's own bound of its check: 30 s for each of connect, TLS and HTTP.
  checkTimeoutMs: 120_000,
};

/** Targets start first so nothing is accepted before it can be delivered; stop goes in reverse. */
export const startOrder: Record<PluginRole, number> = { target: 0, notifier: 1, source: 2 };
