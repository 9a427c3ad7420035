/**
 * Which history line ids are settled: at or below a mark, every id is either committed (and
 * seen by any read that starts now) or will never be. Ids come from a sequence before commit,
 * so lines commit out of id order; the event stream hands out only settled lines, in id order,
 * which is the order a replay after `Last-Event-ID` reads them in (docs/api/events.md#message-history-stream: no gap and no
 * duplicate across a reconnect).
 *
 * The reader does the work, the writers pay nothing but their id's default, which takes the
 * transaction's xid before the id (Migration0100HistoryIdAfterXid). So: read the sequence (m),
 * then, in a later statement, the backends with an xid. Whoever holds an id up to m had its xid
 * before that statement, so it is finished or among those; once all of those have finished, m
 * is settled. (Backends, not a snapshot's xip: an xid newer than every finished one is in no
 * snapshot's list.) A transaction that lingers (any writer of the database counts, not only
 * history's) is asked once whether it holds a lock on message_history: a transaction holding
 * an unwritten history id took that lock before its id and keeps it to the end, so one without
 * it is no longer waited for. All of one mark's statements run on the caller's one connection, which
 * reads the lines up to the mark too: during a failover a pool's connections can reach two servers,
 * and a mark is only true of the server it was read on (replicated.ts asks that server whether a
 * standby has what was read). A history writer that stays open holds the stream back as long:
 * that is the price of the promise. Prepared (two-phase) transactions are not waited for; pier
 * makes none.
 */
import { pgArray, type Tx } from '../../storage/sql.js';

/** pid and xid of the backends that are in a transaction with an xid. */
const backends = 'pg_stat_get_activity(null) as b';

export const settleStatements = {
  /** The highest id handed out by the sequence, committed or not (0 before the first). */
  assigned: `select coalesce(pg_sequence_last_value('message_history_id_seq'::regclass), 0)::text as n`,
  /** The transactions with an xid now, by backend. */
  inProgress: `select b.pid, b.backend_xid::text as xid from ${backends} where b.backend_xid is not null`,
  /** Those of the given transactions still in progress now. */
  stillRunning: `select w.pid, w.xid::text as xid from unnest(?::int[], ?::xid[]) as w(pid, xid)
                  where exists (select 1 from ${backends} where b.pid = w.pid and b.backend_xid = w.xid)`,
  /** Those of the given transactions that hold a lock on message_history. */
  writingHistory: `select w.pid, w.xid::text as xid from unnest(?::int[], ?::xid[]) as w(pid, xid)
                    where exists (select 1 from pg_locks l
                                   where l.pid = w.pid and l.locktype = 'relation'
                                     and l.relation = 'message_history'::regclass
                                     and l.database = (select oid from pg_database
                                                        where datname = current_database()))`,
};

/** A transaction, by the backend that runs it. */
interface Running {
  pid: number;
  xid: string;
}

const params = (running: readonly Running[]): unknown[] => [
  pgArray(running.map((r) => r.pid)),
  pgArray(running.map((r) => r.xid)),
];

export interface SettleTiming {
  /** Milliseconds between two looks at the transactions waited for. */
  pollMs: number;
  /** Milliseconds a transaction is waited for before pg_locks is asked whether it writes history. */
  lingerMs: number;
}

export const defaultSettleTiming: SettleTiming = { pollMs: 5, lingerMs: 50 };

export class SettledIds {
  constructor(private readonly timing: SettleTiming = defaultSettleTiming) {}

  /**
   * A mark at or above `known` up to which every id is settled; waits for the transactions
   * that may still commit a smaller id. `stop()` true gives up waiting (and answers `known`).
   * `db` must be one connection, and what is read up to the mark read on it too.
   */
  async mark(db: Tx, known: number, stop: () => boolean): Promise<number> {
    const [assigned] = await db.all<{ n: string }>(settleStatements.assigned);
    const m = Number(assigned?.n ?? 0);
    if (m <= known) return known;
    let waiting = await db.all<Running>(settleStatements.inProgress);
    const started = performance.now();
    let askedLocks = false;
    while (waiting.length > 0) {
      // A poll, not a wake per commit: under load every look finds writers in flight, and a
      // look per commit would be a query per commit.
      await new Promise((resolve) => setTimeout(resolve, this.timing.pollMs));
      if (stop()) return known;
      waiting = await db.all<Running>(settleStatements.stillRunning, params(waiting));
      if (waiting.length > 0 && !askedLocks && performance.now() - started >= this.timing.lingerMs) {
        askedLocks = true;
        // Only the lock matters: the xid was checked running a moment ago, and is again next time.
        waiting = await db.all<Running>(settleStatements.writingHistory, params(waiting));
      }
    }
    return m;
  }
}
