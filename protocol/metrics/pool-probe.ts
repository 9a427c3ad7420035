/**
 * How an actor thread's host learns the state of the thread's database connections without
 * knowing where they come from: the flow's commands, which open them, set the probe
 * (flow/actor-commands.ts), and the host sends what it reads with each metrics batch.
 */
export interface PoolUsage {
  in_use: number;
  idle: number;
  waiting: number;
}

let probe: (() => PoolUsage) | undefined;

export function setPoolProbe(read: () => PoolUsage): void {
  probe = read;
}

/** The thread's connections now, or undefined in a thread that opened none. */
export function poolUsage(): PoolUsage | undefined {
  return probe?.();
}
