/**
 * The message flow's own PostgreSQL connections: a few, made like the ORM's (same settings and
 * type parsers, from its driver), and set once for the flow's statements. On the ORM's shared
 * connections those settings had to be made per transaction (`set local …`, sent with
 * `begin`), so a write of the flow could not be a statement alone: each acceptance and each
 * batch of results paid a `begin` and a `commit`, two round trips each. Here a statement that
 * does everything a step needs commits by itself, in one round trip.
 */
import type pg from 'pg';
import type { Orm } from './db.js';
import { failoverUrlOf } from './failover-urls.js';
import type { PgConnection, Pool } from './sql.js';
import { connectToPrimary } from './primary-locator.js';
import { ormLikeTypes } from './orm-like-types.js';

/**
 * Every statement on these connections is planned generically, without sequential scans and
 * without JIT:
 * - `plan_cache_mode = force_generic_plan`: a prepared statement is planned once per
 *   connection. Left to itself, PostgreSQL re-planned the flow's batch statements on every run (a
 *   custom plan looked cheaper for the few rows of each batch), which cost more than running
 *   them: ≈ 1 ms of PostgreSQL CPU per received message at concurrency 4.
 * - `enable_seqscan = off`: a generic plan counts a batch read from JSON as 100 rows, and
 *   against a table it thinks small (new, or never analyzed) hashed the whole table for a batch
 *   of four. In the receive benchmark, 4,000 messages on a new database read 4.4 million rows
 *   by sequential scans. The flow's statements were checked to probe indexes
 *   (flow/commands/plans.test.ts); the API's queries, on the ORM's connections, keep the
 *   planner's defaults.
 * - `jit = off`: a statement left with a sequential scan it cannot avoid (the few routes, read
 *   whole) carries the planner's penalty for it in its cost, far above `jit_above_cost`, and
 *   PostgreSQL compiled it on every run: 65 ms for a read of two small tables.
 */
export const flowSessionSettings =
  'set plan_cache_mode = force_generic_plan; set enable_seqscan = off; set jit = off';

/** What knex's PostgreSQL client offers for connections outside its pool. */
interface RawConnections {
  acquireRawConnection(): Promise<PgConnection>;
  destroyRawConnection(connection: PgConnection): Promise<void>;
}

/**
 * Connections made with the pg driver directly, named so that PostgreSQL shows who holds them
 * (pg_stat_activity.application_name) and the supervisor can end them when their thread ended.
 */
function clientsOf(url: string, applicationName: string): RawConnections {
  return {
    async acquireRawConnection() {
      const { client, connect } = await connectToPrimary(url, {
        types: ormLikeTypes,
        application_name: applicationName,
      });
      // A socket that fails between statements marks the client, which the pool then drops.
      client.on(
        'error',
        (error) => ((client as PgConnection & { __knex__disposed?: unknown }).__knex__disposed = error),
      );
      await connect();
      return client as unknown as PgConnection;
    },
    async destroyRawConnection(connection) {
      await (connection as unknown as pg.Client).end();
    },
  };
}

/** Set by knex on a connection whose socket failed, and by inTx on one left mid-transaction. */
const isBroken = (connection: PgConnection) =>
  (connection as PgConnection & { __knex__disposed?: unknown }).__knex__disposed !== undefined;

export class FlowConnections implements Pool {
  readonly #raw: RawConnections;
  readonly #max: number;
  readonly #idle: PgConnection[] = [];
  readonly #waiting: { resolve(connection: PgConnection): void; reject(error: unknown): void }[] = [];
  #open = 0;
  #closed = false;

  /**
   * `max`: the flow writes from one acceptance batch, one result batch and one claim per target
   * at a time, so a few connections serve it; more wait their turn. `source`: the ORM, whose
   * driver makes the connections, or a URL (an actor's thread, where no ORM is opened).
   */
  constructor(source: Orm | { url: string; applicationName: string }, max = 4) {
    this.#raw =
      'url' in source
        ? clientsOf(source.url, source.applicationName)
        : failoverUrlOf(source)
          ? clientsOf(failoverUrlOf(source)!, 'pier')
          : (source.em.getConnection().getKnex() as unknown as { client: RawConnections }).client;
    this.#max = max;
  }

  /** Connections handed out and not given back, idle ones, and callers waiting for one (metrics). */
  get usage(): { inUse: number; idle: number; waiting: number } {
    return { inUse: this.#open - this.#idle.length, idle: this.#idle.length, waiting: this.#waiting.length };
  }

  async acquireConnection(): Promise<PgConnection> {
    if (this.#closed) throw new Error('The flow connections are closed');
    const idle = this.#idle.pop();
    if (idle) return idle;
    if (this.#open >= this.#max)
      return new Promise((resolve, reject) => this.#waiting.push({ resolve, reject }));
    this.#open++;
    try {
      const connection = await this.#raw.acquireRawConnection();
      await connection.query(flowSessionSettings);
      return connection;
    } catch (error) {
      this.#open--;
      throw error;
    }
  }

  async releaseConnection(connection: PgConnection): Promise<void> {
    if (isBroken(connection) || this.#closed) {
      this.#open--;
      await this.#raw.destroyRawConnection(connection).catch(() => {});
      // One that waited gets a new connection in its place.
      const next = this.#waiting.shift();
      if (next) this.acquireConnection().then(next.resolve, next.reject);
      return;
    }
    const next = this.#waiting.shift();
    if (next) next.resolve(connection);
    else this.#idle.push(connection);
  }

  /** Closes the idle connections; those in use close as they come back. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const waiting of this.#waiting.splice(0))
      waiting.reject(new Error('The flow connections are closed'));
    const idle = this.#idle.splice(0);
    this.#open -= idle.length;
    await Promise.all(idle.map((c) => this.#raw.destroyRawConnection(c).catch(() => {})));
  }
}
