/**
 * SQL on the pg driver, past MikroORM and its query builder: a statement costs ≈ 70 µs of CPU
 * this way against ≈ 150 µs through them (and a transaction ≈ 130 against ≈ 400 µs, measured
 * on these machines), which matters on paths that run several statements per message. The
 * connections, their settings and type parsers are the ORM's own, taken from its pool.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from './db.js';

/** Runs SQL with `?` placeholders; rows come back as the driver reads them. */
export interface Tx {
  all<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /**
   * The same as a statement prepared once per connection under `name` (which must be unique
   * to this text), so PostgreSQL parses it once and, after a few runs, plans it once when its
   * generic plan looks as cheap as a custom one (or always, on the flow's connections:
   * flow-connections.ts). For statements that run per request or per batch, whose generic plan
   * is checked to probe indexes: parsing and planning them cost more than running them.
   */
  prepared<T = Record<string, unknown>>(name: string, text: string, params?: unknown[]): Promise<T[]>;
}

/** A connection of the ORM's pool as the pg driver hands it out. */
export interface PgConnection {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/** Where statements get their connection: the ORM's pool, or the flow's (flow-connections.ts). */
export interface Pool {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<void>;
}

/** The pool of the ORM (or of an entity manager's connection). */
function poolOf(source: Orm | EntityManager | Pool): Pool {
  if ('acquireConnection' in source) return source;
  const connection = 'em' in source ? source.em.getConnection() : source.getConnection();
  return (connection.getKnex() as unknown as { client: Pool }).client;
}

const numbered = new Map<string, string>();

/** `?` placeholders as `$1`, `$2`…, as the query builder would number them; kept per text. */
function numberPlaceholders(text: string): string {
  let found = numbered.get(text);
  if (found === undefined) {
    let n = 0;
    found = text.replace(/\?/g, () => `$${++n}`);
    if (numbered.size >= 2000) numbered.clear();
    numbered.set(text, found);
  }
  return found;
}

function onConnection(connection: PgConnection): Tx {
  return {
    all: async <T>(text: string, params: unknown[] = []) =>
      (await connection.query(numberPlaceholders(text), params)).rows as T[],
    prepared: async <T>(name: string, text: string, params: unknown[] = []) =>
      (await connection.query({ name, text: numberPlaceholders(text), values: params })).rows as T[],
  };
}

/**
 * When each connection last dropped its cached plans. A generic plan is made once, for the
 * table sizes of that moment, and kept as long as the connection lives: one made while the
 * tables of a new installation were nearly empty scans them whole, and would still do so at
 * millions of rows (these tables are rarely analyzed: autovacuum may be off or behind). Every
 * so often a connection drops its plans (`discard plans`; its prepared statements stay), and
 * the next run of each statement plans for the tables as they are then.
 */
const plansMadeAt = new WeakMap<PgConnection, number>();
// Making a connection's dozen plans again costs a few milliseconds; 5 s keeps the first minutes of a
// new installation, when the tables grow fastest, from running on plans made for empty ones.
let replanEveryMs = 5_000;

/** How often connections make their plans again (tests shorten it). */
export function setReplanInterval(ms: number): void {
  replanEveryMs = ms;
}

/** `discard plans; ` when this connection's plans are due to be made again, else ''. */
function replanPrefix(connection: PgConnection): string {
  const now = Date.now();
  const madeAt = plansMadeAt.get(connection);
  if (madeAt === undefined) {
    plansMadeAt.set(connection, now);
    return '';
  }
  if (now - madeAt < replanEveryMs) return '';
  plansMadeAt.set(connection, now);
  return 'discard plans; ';
}

/** Statements that are atomic by themselves, each on whichever pool connection is free. */
export function direct(source: Orm | EntityManager | Pool): Tx {
  const pool = poolOf(source);
  return {
    all: <T>(text: string, params: unknown[] = []) => onOneConnection(pool, (tx) => tx.all<T>(text, params)),
    prepared: <T>(name: string, text: string, params: unknown[] = []) =>
      onOneConnection(pool, (tx) => tx.prepared<T>(name, text, params)),
  };
}

/**
 * Statements one after another on one connection of the pool, each atomic by itself (no
 * transaction): what they read comes from one server, also while a failover moves the pool's
 * connections from the old primary to the new one.
 */
export async function onOneConnection<T>(source: Orm | Pool, work: (tx: Tx) => Promise<T>): Promise<T> {
  const pool = poolOf(source);
  const connection = await pool.acquireConnection();
  try {
    const replan = replanPrefix(connection);
    if (replan) await connection.query(replan);
    return await work(onConnection(connection));
  } finally {
    await pool.releaseConnection(connection);
  }
}

/**
 * Statements in the transaction an entity manager holds (each on its own when it holds none), for
 * code in the middle of an entity unit of work that needs what the entity API has no words for:
 * advisory locks, `insert … select`, counts and aggregates across tables, conditional updates.
 * The same `Tx` as the flow's statements, so raw SQL outside storage/ has one shape and one door.
 */
export function inEntityTx(em: EntityManager): Tx {
  const run = <T>(text: string, params: unknown[] = []) =>
    em.getConnection().execute<T[]>(text, params, 'all', em.getTransactionContext());
  return { all: run, prepared: (_name, text, params) => run(text, params) };
}

/** The ORM's pool as its pool library counts it, for the process's gauges; undefined before it opens. */
export function ormPoolCounts(orm: Orm): { used: number; free: number; pending: number } | undefined {
  const pool = (
    orm.em.getConnection().getKnex() as unknown as {
      client: { pool?: { numUsed(): number; numFree(): number; numPendingAcquires(): number } };
    }
  ).client.pool;
  return pool && { used: pool.numUsed(), free: pool.numFree(), pending: pool.numPendingAcquires() };
}

/** Runs `work` in a transaction on a connection of `source`'s pool. */
export async function inTx<T>(source: Orm | Pool, work: (tx: Tx) => Promise<T>): Promise<T> {
  const pool = poolOf(source);
  const connection = await pool.acquireConnection();
  try {
    // One round trip either way: the simple protocol takes both statements in one string.
    await connection.query(`${replanPrefix(connection)}begin`);
    let result: T;
    try {
      result = await work(onConnection(connection));
    } catch (error) {
      await connection.query('rollback').catch((broken: unknown) => {
        // The pool drops connections marked so, instead of handing out one mid-transaction.
        (connection as PgConnection & { __knex__disposed?: unknown }).__knex__disposed = broken;
      });
      throw error;
    }
    await connection.query('commit');
    return result;
  } finally {
    await pool.releaseConnection(connection);
  }
}

/**
 * Parameters by name for a statement that uses one value in several places: `sql.at` is the
 * placeholder (`$3`) to write into the text, `values` the list to pass. The text must then use
 * these placeholders only, no `?`.
 */
export function bindByName<K extends string>(
  named: Record<K, unknown>,
): { sql: Record<K, string>; values: unknown[] } {
  const sql = {} as Record<K, string>;
  const values: unknown[] = [];
  for (const [name, value] of Object.entries(named) as [K, unknown][]) {
    values.push(value);
    sql[name] = `$${values.length}`;
  }
  return { sql, values };
}

/** A PostgreSQL array literal, for `= any(?::text[])`: each element quoted. */
export function pgArray(values: readonly (string | number)[]): string {
  // A loop, not a callback made per call: V8 compiles such a callback again after each
  // collection (docs/decisions/no-callbacks-made-per-call-on-the-message-path.md).
  let literal = '';
  for (const value of values) literal += `${literal ? ',' : ''}"${String(value).replace(/[\\"]/g, escaped)}"`;
  return `{${literal}}`;
}

const escaped = (character: string) => `\\${character}`;
