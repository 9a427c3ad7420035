/**
 * Gauges of this process, read when Prometheus scrapes: the state of each plugin instance it
 * runs, and its connection pools (the main thread's, and the actor threads' as they report them). Every process exports its own; summed over the cluster
 * they count instances and connections, as they should.
 */
import type { Orm } from '../../storage/db.js';
import { ormPoolCounts } from '../../storage/sql.js';
import { serviceStatuses } from '../lifecycle/states.js';
import type { Supervisor } from '../supervisor/supervisor.js';
import type { PierMetrics } from './registry.js';

export function processGauges(
  metrics: PierMetrics,
  supervisor: Supervisor,
  orm: Orm,
  flowPool: () => { inUse: number; idle: number; waiting: number },
): void {
  metrics.gauge(
    'pier_instance_state',
    'Plugin instances of this process: 1 for the state each is in, 0 for the others',
    ['type', 'name', 'state'],
    (set) => {
      for (const i of supervisor.states())
        for (const state of serviceStatuses)
          set({ type: i.type, name: i.name, state }, i.status === state ? 1 : 0);
    },
  );
  metrics.gauge(
    'pier_db_pool_connections',
    "This process's PostgreSQL connections: the main thread's ORM pool (pool=orm) and flow pool " +
      "(pool=flow), and the actor threads' own (pool=actors, summed), in use, idle, and requests waiting for one",
    ['pool', 'state'],
    (set) => {
      const p = ormPoolCounts(orm);
      if (p) {
        set({ pool: 'orm', state: 'in_use' }, p.used);
        set({ pool: 'orm', state: 'idle' }, p.free);
        set({ pool: 'orm', state: 'waiting' }, p.pending);
      }
      const flow = flowPool();
      set({ pool: 'flow', state: 'in_use' }, flow.inUse);
      set({ pool: 'flow', state: 'idle' }, flow.idle);
      set({ pool: 'flow', state: 'waiting' }, flow.waiting);
      const actors = metrics.threadPools();
      set({ pool: 'actors', state: 'in_use' }, actors.in_use);
      set({ pool: 'actors', state: 'idle' }, actors.idle);
      set({ pool: 'actors', state: 'waiting' }, actors.waiting);
    },
  );
}
