/**
 * Counting what a run of real pier processes left in its database: rows, deliveries made, and
 * how the deliveries were claimed. Read on the database directly, never through a process.
 */
import { sql } from './database.js';
import { waitFor } from './wait.js';

export type RowCount = (where: string) => Promise<number>;

/** `count(where)`: how many rows `select count(*) from <where>` finds in the database at `url`. */
export function rowCounter(url: string): RowCount {
  return async (where) => Number((await sql(url, `select count(*)::int as n from ${where}`))[0]!.n);
}

/** Waits until `n` deliveries are delivered, looking every `intervalMs`, for at most `timeoutMs`. */
export async function allDelivered(
  count: RowCount,
  n: number,
  timeoutMs: number,
  what = 'all delivered',
  intervalMs = 100,
): Promise<void> {
  await waitFor(
    async () => (await count("delivery where state = 'delivered'")) === n,
    what,
    timeoutMs,
    intervalMs,
  );
}

/**
 * How the deliveries of a run on several processes were claimed: the totals (messages, deliveries,
 * claims, the most claims of one delivery), the deliveries each process claimed, and how many a
 * process claimed whose message another process accepted.
 */
export async function deliveryClaims(url: string) {
  const [totals] = await sql<{ messages: number; deliveries: number; claims: number; most: number }>(
    url,
    `select (select count(*)::int from message) as messages, count(*)::int as deliveries,
            sum(claims)::int as claims, max(claims)::int as most from delivery`,
  );
  const byNode = await sql<{ n: number }>(
    url,
    'select claimed_by, count(*)::int as n from delivery group by claimed_by',
  );
  const [crossed] = await sql<{ n: number }>(
    url,
    'select count(*)::int as n from delivery d join message m on m.id = d.message_id where d.claimed_by <> m.accepted_by',
  );
  return { totals: totals!, byNode, crossed: crossed!.n };
}
