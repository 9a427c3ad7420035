/**
 * PostgreSQL's own counters of one database, read between cases: commits (pg_stat_database),
 * statements (pg_stat_statements, when the cluster has it loaded) and sequential scans.
 */
import pg from 'pg';

export interface DbCounters {
  commits: number;
  statements: number | null;
  deliverySeqScans: number;
  messageSeqScans: number;
  seqRowsRead: number;
}

export interface DbCounterReader {
  hasStatements: boolean;
  read(): Promise<DbCounters>;
  end(): Promise<void>;
}

export async function dbCounterReader(url: string): Promise<DbCounterReader> {
  const stats = new pg.Client({ connectionString: url });
  await stats.connect();
  const hasStatements =
    (await stats.query(`select 1 from pg_extension where extname = 'pg_stat_statements'`)).rowCount! > 0 ||
    (await stats
      .query('create extension if not exists pg_stat_statements')
      .then(() => stats.query('select 1 from pg_stat_statements limit 1'))
      .then(
        () => true,
        () => false,
      ));
  return {
    hasStatements,
    end: () => stats.end(),
    async read() {
      await stats.query('select pg_stat_clear_snapshot()');
      const [d] = (
        await stats.query<{ commits: string }>(
          'select xact_commit as commits from pg_stat_database where datname = current_database()',
        )
      ).rows;
      const tables = (
        await stats.query<{ relname: string; seq_scan: string; seq_tup_read: string }>(
          'select relname, seq_scan, seq_tup_read from pg_stat_user_tables',
        )
      ).rows;
      const scans = (name: string) => Number(tables.find((t) => t.relname === name)?.seq_scan ?? 0);
      let statements: number | null = null;
      if (hasStatements) {
        const [s] = (
          await stats.query<{ calls: string }>(
            `select coalesce(sum(calls), 0) as calls from pg_stat_statements s
               join pg_database d on d.oid = s.dbid where d.datname = current_database()`,
          )
        ).rows;
        statements = Number(s!.calls);
      }
      return {
        // This connection's own statement and commits are taken off by the caller.
        commits: Number(d!.commits),
        statements,
        deliverySeqScans: scans('delivery'),
        messageSeqScans: scans('message'),
        seqRowsRead: tables.reduce((a, t) => a + Number(t.seq_tup_read), 0),
      };
    },
  };
}

/** Per message, less the reader's own work: one commit and four statements per read. */
export function dbCountersPerMessage(before: DbCounters, after: DbCounters, messages: number) {
  const per = (n: number) => Number((n / Math.max(messages, 1)).toFixed(2));
  return {
    commits_per_msg: per(after.commits - before.commits - 1),
    statements_per_msg:
      after.statements === null || before.statements === null
        ? null
        : per(after.statements - before.statements - 4),
    delivery_seq_scans: after.deliverySeqScans - before.deliverySeqScans,
    message_seq_scans: after.messageSeqScans - before.messageSeqScans,
    seq_rows_read: after.seqRowsRead - before.seqRowsRead,
  };
}
