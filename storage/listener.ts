/**
 * One PostgreSQL connection per process that LISTENs for announcements from every pier
 * process sharing the database (cache invalidation now, delivery announcements later).
 * It reconnects by itself; while it is away, callers fall back on their own timeouts.
 */
import type pg from 'pg';
import type { Logger } from 'pino';
import type { OutageLog } from './outage-log.js';
import { connectToPrimary } from './primary-locator.js';

export type ChannelHandler = (payload: string) => void;

export class DatabaseListener {
  #client: pg.Client | undefined;
  #closed = false;
  readonly #handlers = new Map<string, ChannelHandler[]>();
  #retryTimer: NodeJS.Timeout | undefined;
  /**
   * The LISTENs sent after start, one after another: several `on` calls in one turn queued
   * their queries on the busy connection, which pg deprecates (pg 9 will refuse it).
   */
  #listens: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly url: string,
    private readonly logger: Logger,
    /** Tells a lost connection once per outage, with the process's other statements. */
    private readonly outage?: OutageLog,
  ) {}

  /**
   * Hears `channel` from now on; the function returned stops. The LISTEN goes out with a
   * channel's first handler and UNLISTEN with its last, so a process hears only what something
   * in it waits for: each notice wakes this connection's backend and this thread, in every
   * process sharing the database.
   */
  on(channel: string, handler: ChannelHandler): () => void {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`Bad channel name ${channel}`);
    const handlers = this.#handlers.get(channel) ?? [];
    this.#handlers.set(channel, [...handlers, handler]);
    if (handlers.length === 0) this.#send(`listen ${channel}`);
    let on = true;
    return () => {
      if (!on) return;
      on = false;
      // This registration only: the same function may be on twice.
      const left = [...(this.#handlers.get(channel) ?? [])];
      left.splice(left.indexOf(handler), 1);
      if (left.length > 0) return void this.#handlers.set(channel, left);
      this.#handlers.delete(channel);
      this.#send(`unlisten ${channel}`);
    };
  }

  /** Once the LISTENs and UNLISTENs asked for so far are in effect (at once while the connection is away). */
  settled(): Promise<void> {
    return this.#listens.then(() => undefined);
  }

  #send(query: string): void {
    const client = this.#client;
    // Away: the start that connects again listens to every channel with a handler then.
    if (client) this.#listens = this.#listens.then(() => client.query(query)).catch(() => {});
  }

  async start(): Promise<void> {
    const { client, connect } = await connectToPrimary(this.url);
    client.on('notification', (n) => {
      for (const handler of this.#handlers.get(n.channel) ?? []) handler(n.payload ?? '');
    });
    client.on('error', (error) => {
      if (this.outage) this.outage.failed('listening for announcements', error);
      else this.logger.warn({ err: error }, 'database listener lost its connection; reconnecting');
      this.#reconnectLater();
    });
    await connect();
    for (const channel of this.#handlers.keys()) await client.query(`listen ${channel}`);
    this.#client = client;
    this.outage?.answered();
  }

  #reconnectLater(): void {
    const old = this.#client;
    this.#client = undefined;
    void old?.end().catch(() => {});
    if (this.#closed || this.#retryTimer) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      if (this.#closed) return;
      this.start().catch(() => this.#reconnectLater());
    }, 1000);
    this.#retryTimer.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retryTimer);
    await this.#client?.end().catch(() => {});
  }
}
