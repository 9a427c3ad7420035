/**
 * Gauges of this process, read when Prometheus scrapes: the state of each plugin instance it
 * runs, and its ORM connection pool. Every process exports its own; summed over the cluster
 * they count instances and connections, as they should.
 */
import type { Orm } from '../../storage/db.js';
import { serviceStatuses } from '../lifecycle/states.js';
import type { Supervisor } from '../supervisor/supervisor.js';
import type { PierMetrics } from './registry.js';

/** What knex's pool (tarn) tells of itself. */
interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

export function processGauges(metrics: PierMetrics, supervisor: Supervisor, orm: Orm): void {
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
  const pool = () =>
    (orm.em.getConnection().getKnex() as unknown as { client: { pool?: TarnPool } }).client.pool;
  metrics.gauge(
    'pier_db_pool_connections',
    "This process's ORM pool of PostgreSQL connections: in use, idle, and requests waiting for one",
    ['state'],
    (set) => {
      const p = pool();
      if (!p) return;
      set({ state: 'in_use' }, p.numUsed());
      set({ state: 'idle' }, p.numFree());
      set({ state: 'waiting' }, p.numPendingAcquires());
    },
  );
}
