/**
 * A job on timers that do not keep the process alive: once after `firstDelayMs`, then every
 * `intervalMs`, never two runs at once (a run still under way when the next is due skips it).
 * `stop` ends the timers and waits for a run under way. The job handles its own failures.
 */
export function runPeriodically(
  job: () => Promise<void>,
  firstDelayMs: number,
  intervalMs: number,
): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  let stopped = false;
  const run = () => {
    if (stopped || running) return;
    running = job().finally(() => {
      running = undefined;
    });
  };
  let interval: NodeJS.Timeout | undefined;
  const first = setTimeout(() => {
    run();
    interval = setInterval(run, intervalMs);
    interval.unref();
  }, firstDelayMs);
  first.unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(first);
      if (interval) clearInterval(interval);
      await running;
    },
  };
}
