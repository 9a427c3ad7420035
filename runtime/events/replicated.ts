/**
 * Whether what a connection reads now is on a synchronous standby too, so that a failover keeps
 * it. A commit waits for the standby before other sessions see it, so what the event stream reads
 * normally is. Not after a crash: a primary restarted after `kill -9` replays its own commits that
 * no standby confirmed and shows them, until the failover manager demotes it and they are gone.
 * The history feed read such lines from a restarted old primary and handed them out, and the
 * subscriber kept events of state changes that never happened (the failover test: the three lines
 * of one message, twice in two runs). So lines are handed out only once the WAL written up to their
 * reading is flushed on a synchronous standby, when the server has any; with none configured, or
 * when the role may not see the standbys' positions, as before.
 */
import type { Tx } from '../../storage/sql.js';

export const replicationStatements = {
  /** The synchronous standbys asked for, and how far this server's WAL goes now. */
  position: `select current_setting('synchronous_standby_names') as standbys, pg_current_wal_lsn()::text as lsn`,
  /**
   * Whether a synchronous standby flushed the WAL up to `lsn` (null when no standby is connected),
   * and whether the standbys' positions are hidden from this role (every column of
   * pg_stat_replication but the names reads null without pg_read_all_stats). Asked of the role,
   * not read from null positions: a standby that has just connected (a failover's old primary
   * rejoining, a base backup) shows null positions to a superuser too, and was taken for hidden
   * positions, so lines it did not have yet were handed out.
   */
  flushed: `select (select bool_or(sync_state in ('sync', 'quorum') and flush_lsn >= ?::pg_lsn)
                      from pg_stat_replication) as flushed,
                   not pg_has_role(current_user, 'pg_read_all_stats', 'usage') as hidden`,
};

export interface ReplicationTiming {
  /** Milliseconds between two looks at the standbys. */
  pollMs: number;
  /** Milliseconds after which the reader gives up for now (and reads again later). */
  giveUpMs: number;
}

export const defaultReplicationTiming: ReplicationTiming = { pollMs: 5, giveUpMs: 2000 };

/**
 * True when everything `db` (one connection) has read so far is on a synchronous standby, or the
 * server has none; false when none confirmed it within `giveUpMs` (a primary without its standby,
 * as a restarted old primary is).
 */
export async function readIsReplicated(
  db: Tx,
  timing: ReplicationTiming = defaultReplicationTiming,
): Promise<boolean> {
  const [position] = await db.all<{ standbys: string; lsn: string }>(replicationStatements.position);
  if (!position || position.standbys.trim() === '') return true;
  const started = performance.now();
  for (;;) {
    const [standby] = await db.all<{ flushed: boolean | null; hidden: boolean | null }>(
      replicationStatements.flushed,
      [position.lsn],
    );
    // Without pg_read_all_stats the positions read as null: nothing to wait for that can be seen.
    if (standby?.flushed || standby?.hidden) return true;
    if (performance.now() - started >= timing.giveUpMs) return false;
    await new Promise((resolve) => setTimeout(resolve, timing.pollMs));
  }
}
