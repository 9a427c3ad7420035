/**
 * How many threads an instance runs from its setting (a receiver's `listener_threads`, a
 * target's `threads`): the setting itself, or with 0 one per `coresPerThread`
 * cores, at least one and at most `max`.
 */
import os from 'node:os';
import { limits } from '../../limits/limits.js';

export function threadCount(
  setting: number,
  cores: number = os.availableParallelism(),
  coresPerThread: number = limits.coresPerTargetThread,
  max: number = limits.maxAutomaticTargetThreads,
): number {
  if (setting > 0) return setting;
  return Math.max(1, Math.min(Math.floor(cores / coresPerThread), max));
}

/**
 * Thread `number`'s share (1 is the first) of the instance's `slots` among `threads`: the
 * instance delivers at most `max_concurrent_deliveries` at once, whatever its threads.
 */
export function slotsOf(slots: number, threads: number, number: number): number {
  return Math.floor(slots / threads) + (number - 1 < slots % threads ? 1 : 0);
}
