/**
 * The certificate exchanges' schedule: CemService.tick once soon after start (a switch or an
 * alert that came due while every process was stopped happens then) and every minute after,
 * on a timer that does not keep the process alive. Every process runs it; the tick's lock
 * and its rows make each switch and each alert happen once in the cluster.
 */
import type { Logger } from 'pino';
import type { OutageLog } from '../../storage/outage-log.js';
import type { CemService } from './cem-service.js';
import { runPeriodically } from '../periodic.js';

export interface CemScheduleOptions {
  /** First tick after this many milliseconds (default 5 seconds, so startup stays quick). */
  firstDelayMs?: number;
  /** Then one tick every this many milliseconds (default one minute). */
  intervalMs?: number;
  /** Where a failed tick is told: once per database outage, every time otherwise. */
  outage?: Pick<OutageLog, 'failed'>;
}

export function scheduleCemTicks(
  cem: CemService,
  logger: Logger,
  options: CemScheduleOptions = {},
): { stop(): Promise<void> } {
  const tick = () =>
    cem
      .tick()
      .then(({ switched, overdue }) => {
        if (switched + overdue > 0) logger.info({ switched, overdue }, 'certificate exchanges due');
      })
      .catch((error: unknown) => {
        // A database away is told once per outage, with every other statement's failure.
        if (options.outage) options.outage.failed('certificate exchange schedule', error);
        else logger.error({ err: error }, 'certificate exchange schedule failed');
      });
  return runPeriodically(tick, options.firstDelayMs ?? 5_000, options.intervalMs ?? 60_000);
}
