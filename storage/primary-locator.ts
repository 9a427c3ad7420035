/**
 * Which node of a multi-host DATABASE_URL takes writes now. A failover engine (pg_auto_failover)
 * promotes a standby when the primary dies; the processes are not told, they find out when their
 * connections break. So every connection of pier is made through here: the primary found last is
 * remembered until a connection to it fails, and the next connection asks every node again
 * (`pg_is_in_recovery()`), so it reaches whichever node is primary now, without a restart.
 *
 * With a single-host URL this is a pass-through: no probe and no extra statement.
 */
import pg from 'pg';
import { databaseHosts, type DatabaseHost, type DatabaseHosts } from './database-hosts.js';
import { limits } from '../limits/limits.js';

/** Told when a node other than the one found before is found primary (a failover or switchover). */
export type PrimaryChange = (from: DatabaseHost, to: DatabaseHost) => void;

/** The statement that tells a node that takes writes from one that does not (a standby, or a primary being demoted). */
export const readOnlyQuery =
  "select pg_is_in_recovery() or current_setting('transaction_read_only') = 'on' as read_only";

export class PrimaryLocator {
  readonly #hosts: DatabaseHosts;
  #current: DatabaseHost | undefined;
  #last: DatabaseHost | undefined;
  #finding: Promise<DatabaseHost> | undefined;
  #generation = 0;
  readonly #changes: PrimaryChange[] = [];

  constructor(url: string) {
    this.#hosts = databaseHosts(url);
  }

  /** Whether the URL names several nodes (only then is anything probed). */
  get several(): boolean {
    return this.#hosts.hosts.length > 1;
  }

  get hosts(): DatabaseHost[] {
    return this.#hosts.hosts;
  }

  /** Changes each time the primary found is forgotten; a connection made before is then stale. */
  get generation(): number {
    return this.#generation;
  }

  /**
   * The node to connect to: the one found last, else the first that takes writes now (with
   * `target_session_attrs=any`, the first that answers).
   */
  async primary(): Promise<DatabaseHost> {
    if (!this.several) return this.#hosts.hosts[0]!;
    if (this.#current) return this.#current;
    this.#finding ??= this.#find().finally(() => (this.#finding = undefined));
    return this.#finding;
  }

  /** A connection to the primary failed: the next connection asks the nodes again. */
  forget(): void {
    if (!this.several || !this.#current) return;
    this.#current = undefined;
    this.#generation++;
  }

  onChange(listener: PrimaryChange): void {
    this.#changes.push(listener);
  }

  async #find(): Promise<DatabaseHost> {
    const errors: Error[] = [];
    for (const host of this.#hosts.hosts) {
      try {
        // Every node is asked, with `target_session_attrs=any` too: a node that does not answer
        // throws here and the next one is tried, as libpq does.
        const readOnlyNow = await readOnly(host);
        if (this.#hosts.readWrite && readOnlyNow) {
          errors.push(new Error(`${host.host}:${host.port} does not take writes (a standby)`));
          continue;
        }
        const before = this.#last;
        this.#current = host;
        this.#last = host;
        if (before && before.url !== host.url) for (const listener of this.#changes) listener(before, host);
        return host;
      } catch (error) {
        errors.push(error instanceof Error ? error : new Error(String(error)));
      }
    }
    throw noPrimary(errors, this.#hosts.readWrite ? 'takes writes' : 'answers');
  }
}

async function readOnly(host: DatabaseHost): Promise<boolean> {
  const client = new pg.Client({
    connectionString: host.url,
    connectionTimeoutMillis: limits.primaryProbeTimeoutMs,
    application_name: 'pier primary probe',
  });
  client.on('error', () => {}); // a probe that fails is told by its query's rejection
  try {
    await client.connect();
    const { rows } = await client.query<{ read_only: boolean }>(readOnlyQuery);
    return rows[0]?.read_only !== false;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * No node takes writes (during a failover, before the standby is promoted). SQLSTATE 08001
 * ("unable to establish connection") makes it the database being away for the outage log and
 * the API's 503, as a refused connection to a single host is.
 */
function noPrimary(errors: Error[], wanted: 'takes writes' | 'answers' = 'takes writes'): AggregateError {
  const error = new AggregateError(
    errors,
    `No node of DATABASE_URL ${wanted} now: ${errors.map((e) => e.message).join('; ')}`,
  );
  return Object.assign(error, { code: '08001' });
}

/** What each node of a multi-host URL is now, in the URL's order (for `pier doctor`). */
export async function nodeRoles(url: string): Promise<string[]> {
  return Promise.all(
    databaseHosts(url).hosts.map(async (host) => {
      const name = `${host.host}:${host.port}`;
      try {
        return `${name} ${(await readOnly(host)) ? 'standby' : 'primary'}`;
      } catch (error) {
        return `${name} down (${error instanceof Error ? error.message || (error as NodeJS.ErrnoException).code : String(error)})`;
      }
    }),
  );
}

/** One locator per URL and thread, so every pool of a process agrees on the primary. */
const locators = new Map<string, PrimaryLocator>();

export function primaryLocator(url: string): PrimaryLocator {
  let locator = locators.get(url);
  if (!locator) locators.set(url, (locator = new PrimaryLocator(url)));
  return locator;
}

/**
 * A connected pg client on the primary. A client whose socket fails later makes the locator
 * ask again; one that reaches a node that no longer takes writes is closed and refused.
 */
export async function connectToPrimary(url: string, config: Omit<pg.ClientConfig, 'connectionString'> = {}) {
  const locator = primaryLocator(url);
  const host = await locator.primary();
  const client = new pg.Client({ ...config, connectionString: host.url });
  if (!locator.several) return { client, connect: () => client.connect() };
  client.on('error', () => locator.forget());
  return {
    client,
    connect: async () => {
      try {
        await client.connect();
        const { rows } = await client.query<{ read_only: boolean }>(readOnlyQuery);
        if (rows[0]?.read_only !== false)
          throw noPrimary([new Error(`${host.host}:${host.port} no longer takes writes`)]);
      } catch (error) {
        locator.forget();
        await client.end().catch(() => {});
        throw error;
      }
    },
  };
}
