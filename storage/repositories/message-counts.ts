/** Counts over the message flow for GET /stats and the dashboard's chart. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { pgArray } from '../sql.js';

/** One statement of GET /stats with its parameters. */
export interface CountStatement {
  sql: string;
  params: unknown[];
}

const day = 24 * 60 * 60 * 1000;

/**
 * The statements behind GET /stats (docs/api/stats.md), given so that a test can EXPLAIN exactly them
 * on a database the planner knows nothing about (test/api/stats-plans.test.ts): each must reach
 * its rows through an index, so /stats stays quick however long the history.
 */
export function statsStatements(
  now: Date,
  statuses: { inFlight: readonly string[]; failed: readonly string[] },
): Record<'counts' | 'inFlight' | 'failed', CountStatement> {
  const since24h = new Date(now.getTime() - day);
  const since7d = new Date(now.getTime() - 7 * day);
  return {
    counts: {
      // A range with both ends, not `created_at >= ?` alone: without statistics the planner
      // guesses a third of the table for an open range (and scans it whole), but a closed one
      // as narrow (and takes the index). The upper end leaves a day for a node whose clock
      // runs ahead.
      sql: `select count(*) filter (where created_at >= ? and direction = 'outbound') as sent,
                   count(*) filter (where created_at >= ? and direction = 'inbound') as received,
                   count(*) as week
              from message where created_at >= ? and created_at < ?`,
      params: [since24h, since24h, since7d, new Date(now.getTime() + day)],
    },
    inFlight: {
      sql: `select count(*) as n, count(*) filter (where status = 'Retrying') as retrying
              from message where status = any(?::text[])`,
      params: [pgArray(statuses.inFlight)],
    },
    failed: {
      // From the history, so a message that failed and was delivered again later still counts.
      sql: `select count(distinct message_id) as n from message_history
             where kind = 'status_changed' and new_status = any(?::text[]) and created_at >= ?`,
      params: [pgArray(statuses.failed), since24h],
    },
  };
}

/** The counts of GET /stats at `now`. */
export async function statsCounts(
  em: EntityManager,
  now: Date,
  statuses: { inFlight: readonly string[]; failed: readonly string[] },
): Promise<{
  sent: number;
  received: number;
  week: number;
  inFlight: number;
  /** Of those in flight, the messages waiting to be tried again (a partner refused, say). */
  retrying: number;
  failed: number;
}> {
  const statements = statsStatements(now, statuses);
  const conn = em.getConnection();
  const [counts] = await conn.execute<{ sent: string; received: string; week: string }[]>(
    statements.counts.sql,
    statements.counts.params,
  );
  const [flight] = await conn.execute<{ n: string; retrying: string }[]>(
    statements.inFlight.sql,
    statements.inFlight.params,
  );
  const [failed] = await conn.execute<{ n: string }[]>(statements.failed.sql, statements.failed.params);
  return {
    sent: Number(counts?.sent ?? 0),
    received: Number(counts?.received ?? 0),
    week: Number(counts?.week ?? 0),
    inFlight: Number(flight?.n ?? 0),
    retrying: Number(flight?.retrying ?? 0),
    failed: Number(failed?.n ?? 0),
  };
}

interface HourlyCount {
  /** Start of the hour. */
  h: Date;
  direction: string;
  status: string;
  n: string;
}

/** Messages created since `since`, counted per hour, direction and status. */
export function messagesPerHourSince(em: EntityManager, since: Date): Promise<HourlyCount[]> {
  return em.getConnection().execute<HourlyCount[]>(
    `select date_trunc('hour', created_at) as h, direction, status, count(*) as n
       from message where created_at >= ? group by 1, 2, 3`,
    [since],
  );
}
