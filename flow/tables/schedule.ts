/** The waits of the dispatcher: announcing queued deliveries again (stall schedule) and retrying. */
import { limits } from '../../limits/limits.js';

/**
 * Seconds to wait after the `k`-th announcement (k from 0): 10 s × 4^k, at most 10 min.
 * With delivery_max_dispatches 5 the waits are 10, 40, 160, 600, 600 s: 23.5 min in all
 * until the delivery is marked stalled.
 */
export function stallWaitSeconds(k: number): number {
  return Math.min(limits.firstStallWaitSeconds * limits.stallWaitGrowth ** k, limits.maxStallWaitSeconds);
}

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  max_attempts: number;
  /** Seconds before the second attempt. */
  retry_interval: number;
  retry_backoff: number;
  /** Seconds a wait never exceeds. */
  retry_max_interval: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  max_attempts: 10,
  retry_interval: 30,
  retry_backoff: 2,
  retry_max_interval: 3600,
};

/** The policy in an instance's settings, defaults where a type has none. */
export function retryPolicyOf(settings: Record<string, unknown>): RetryPolicy {
  const pick = (k: keyof RetryPolicy) =>
    typeof settings[k] === 'number' ? (settings[k] as number) : defaultRetryPolicy[k];
  return {
    max_attempts: pick('max_attempts'),
    retry_interval: pick('retry_interval'),
    retry_backoff: pick('retry_backoff'),
    retry_max_interval: pick('retry_max_interval'),
  };
}

/** Seconds before the next attempt after `attempts` failed ones; undefined when the limit is reached. */
export function retryWaitSeconds(policy: RetryPolicy, attempts: number): number | undefined {
  if (attempts >= policy.max_attempts) return undefined;
  return Math.min(policy.retry_interval * policy.retry_backoff ** (attempts - 1), policy.retry_max_interval);
}
