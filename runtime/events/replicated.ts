/**
 * Whether what a connection reads now is on a standby too, so that a failover keeps it. A commit
 * waits for the synchronous standby before other sessions see it, so what the event stream reads
 * normally is. Not after a crash: a primary restarted after `kill -9` replays its own commits that
 * no standby confirmed and shows them, until the failover manager demotes it and they are gone.
 * Nor while the failover manager has synchronous replication off (pg_auto_failover's
 * wait_primary, when it finds the standby unhealthy): the commits waiting for the standby are
 * released and shown, and a failover to that standby takes them back. The history feed handed
 * such lines out, and the subscriber kept events of state changes that never happened (the
 * failover test: the three lines of one message, twice in two runs; and, likeliest through
 * wait_primary though not proven, 24 to 51 lines at each of five failovers of one run).
 *
 * So lines are handed out once the WAL written up to their reading is flushed on a standby: a
 * synchronous one while synchronous replication is on; while it is off, any standby, unless this
 * server keeps no physical replication slot (no standby that could take over: a single server,
 * as most are, hands out at once). When the role may not see the standbys' positions, as before.
 */
import type { Tx } from '../../storage/sql.js';

export const replicationStatements = {
  /**
   * The synchronous standbys asked for, how far this server's WAL goes now, and whether a physical
   * replication slot is kept for a standby: a single server answers everything with this one.
   */
  position: `select current_setting('synchronous_standby_names') as standbys, pg_current_wal_lsn()::text as lsn,
                    exists (select 1 from pg_replication_slots where slot_type = 'physical') as slotted`,
  /**
   * Whether a synchronous standby flushed the WAL up to `lsn` (null when no standby is connected),
   * whether any standby did, and whether the standbys' positions are hidden from this role (every column of
   * pg_stat_replication but the names reads null without pg_read_all_stats). Asked of the role,
   * not read from null positions: a standby that has just connected (a failover's old primary
   * rejoining, a base backup) shows null positions to a superuser too, and was taken for hidden
   * positions, so lines it did not have yet were handed out.
   */
  flushed: `select (select bool_or(sync_state in ('sync', 'quorum') and flush_lsn >= ?::pg_lsn)
                      from pg_stat_replication) as flushed,
                   (select bool_or(flush_lsn >= ?::pg_lsn) from pg_stat_replication) as flushed_anywhere,
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
 * True when everything `db` (one connection) has read so far is on a standby that could take
 * over (see above), or no standby could; false when none confirmed it within `giveUpMs` (a
 * primary without its standby, as a restarted old primary is).
 */
export async function readIsReplicated(
  db: Tx,
  timing: ReplicationTiming = defaultReplicationTiming,
): Promise<boolean> {
  const [position] = await db.all<{ standbys: string; lsn: string; slotted: boolean }>(
    replicationStatements.position,
  );
  if (!position) return true;
  const synchronous = position.standbys.trim() !== '';
  // No standby asked for and none that could take over: nothing to wait for.
  if (!synchronous && !position.slotted) return true;
  const started = performance.now();
  for (;;) {
    const [standby] = await db.all<{
      flushed: boolean | null;
      flushed_anywhere: boolean | null;
      hidden: boolean;
    }>(replicationStatements.flushed, [position.lsn, position.lsn]);
    if (!standby) return true;
    // Without pg_read_all_stats the positions read as null: nothing to wait for that can be seen.
    if (standby.hidden) return true;
    if (synchronous ? standby.flushed : standby.flushed_anywhere) return true;
    if (performance.now() - started >= timing.giveUpMs) return false;
    await new Promise((resolve) => setTimeout(resolve, timing.pollMs));
  }
}
