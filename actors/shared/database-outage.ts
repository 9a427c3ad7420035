/**
 * How an actor tells that a statement of its own found the database away, or that it answers
 * again: an event to the core, which tells a process's outage once, whoever saw it
 * (storage/outage-log.ts). Where no core takes the event (a test's stand-in), a log line.
 */
import type { CoreClient } from '../../protocol/worker-host/host.js';

export type OutageTeller = Pick<CoreClient, 'log'> & Partial<Pick<CoreClient, 'database'>>;

export function tellDatabase(core: OutageTeller, ok: boolean, what: string, error?: unknown): void {
  if (core.database) return core.database(ok, what, error === undefined ? undefined : String(error));
  if (ok) core.log('info', `${what} works again`);
  else core.log('warn', `${what} failed; trying again`, { error: String(error) });
}
