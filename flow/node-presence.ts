/**
 * How the flow tells a live claim holder from a dead one: each process holds a session advisory
 * lock keyed by its node number (runtime/cluster/presence.ts takes it); PostgreSQL drops the
 * lock the moment that connection dies (kill -9 included), so no clocks or heartbeats are needed.
 */

/** The advisory lock class of node presence (an arbitrary constant). */
export const nodeLockClass = 731_301;

/** SQL condition: the node holding `column`'s claim is alive (its presence lock is held). */
export function liveNodeCondition(column: string): string {
  return `exists (select 1 from pg_locks l where l.locktype = 'advisory' and l.classid = ${nodeLockClass}
                   and l.objid = ${column}::oid and l.objsubid = 2 and l.granted)`;
}
