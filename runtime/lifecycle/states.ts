/**
 * The service instance lifecycle (docs/api/lifecycles.md#service-instance-status) as a table: every allowed move is a row, every
 * other move is refused. `starting` and `stopping` are transient: no action is taken on an
 * instance in them.
 */

export const serviceStatuses = ['stopped', 'starting', 'running', 'stopping', 'error'] as const;
export type ServiceStatus = (typeof serviceStatuses)[number];

/** What can happen to an instance: the operator's actions and the thread's own events. */
export type Trigger = 'start' | 'stop' | 'restart' | 'ready' | 'fail' | 'crash' | 'stopped';
export type Action = 'start' | 'stop' | 'restart';
export const actions: readonly Action[] = ['start', 'stop', 'restart'];

const transitions: Record<ServiceStatus, Partial<Record<Trigger, ServiceStatus>>> = {
  stopped: { start: 'starting' },
  starting: { ready: 'running', fail: 'error' },
  // A restart of a running instance stops it first, then starts it.
  running: { stop: 'stopping', restart: 'stopping', crash: 'error' },
  // A thread that ends on its own while stopping has stopped all the same.
  stopping: { stopped: 'stopped', crash: 'stopped' },
  error: { start: 'starting', restart: 'starting' },
};

/** The status after `trigger`, or undefined when the table has no such move. */
export function transition(from: ServiceStatus, trigger: Trigger): ServiceStatus | undefined {
  return transitions[from][trigger];
}

/** The operator actions possible now (docs/api/services.md `actions`). */
export function actionsIn(status: ServiceStatus): Action[] {
  return actions.filter((a) => transition(status, a) !== undefined);
}
