/**
 * A process's presence in the cluster: it holds a session advisory lock keyed by its node
 * number on a connection of its own for as long as it lives. PostgreSQL drops the lock the
 * moment that connection dies (kill -9 included), so any process can tell a dead holder of
 * a claim from a live one without clocks or heartbeats.
 */
import { randomInt } from 'node:crypto';
import type { Logger } from 'pino';
import type { OutageLog } from '../../storage/outage-log.js';
import { openSessionConnection, type SessionConnection } from '../../storage/session-connection.js';
import { nodeLockClass } from '../../flow/node-presence.js';
import { limits } from '../../limits/limits.js';

export { liveNodeCondition } from '../../flow/node-presence.js';

export class NodePresence {
  readonly nodeId = randomInt(1, 2 ** 31 - 1);
  #client: SessionConnection | undefined;
  #closed = false;
  #retry: NodeJS.Timeout | undefined;
  /** Whether this process holds the cluster's metrics lock (it exports the cluster-wide gauges). */
  #exporter = false;
  /** When this process last took its presence lock (undefined while it does not hold it). */
  #heldSince: number | undefined;
  /** Whether the lock was lost once (a database outage or failover) since the process started. */
  #lostOnce = false;

  constructor(
    private readonly url: string,
    private readonly logger: Logger,
    /** Tells a lost connection once per outage, with the process's other statements. */
    private readonly outage?: OutageLog,
  ) {}

  async start(): Promise<void> {
    const client = await openSessionConnection(this.url, (error) => {
      if (this.outage) this.outage.failed("holding the node's presence", error);
      else this.logger.warn({ err: error }, 'node presence lost its connection; reconnecting');
      this.#reconnectLater();
    });
    const [row] = await client.rows<{ locked: boolean }>('select pg_try_advisory_lock($1, $2) as locked', [
      nodeLockClass,
      this.nodeId,
    ]);
    if (!row?.locked) {
      await client.end();
      throw new Error(`Node number ${this.nodeId} is taken by a live process`);
    }
    this.#client = client;
    this.#heldSince = Date.now();
  }

  /**
   * Whether free presence locks of other processes mean they are gone: this process holds its
   * own, and has held it for `limits.presenceGraceMs` since it took it again after losing it. At
   * start a free lock is a process that ended (the others kept theirs), as it always was.
   */
  settled(): boolean {
    if (this.#heldSince === undefined) return false;
    return !this.#lostOnce || Date.now() - this.#heldSince >= limits.presenceGraceMs;
  }

  /**
   * Whether this process exports the cluster-wide gauges: the one that holds a second session
   * lock on the presence connection (key 0, which no node number takes). Tried again at each
   * scrape, so when the holder dies another process takes over at its next scrape.
   */
  async exportsClusterMetrics(): Promise<boolean> {
    if (this.#exporter || !this.#client) return this.#exporter;
    const [row] = await this.#client.rows<{ locked: boolean }>(
      'select pg_try_advisory_lock($1, 0) as locked',
      [nodeLockClass],
    );
    this.#exporter = row?.locked === true;
    return this.#exporter;
  }

  #reconnectLater(): void {
    const old = this.#client;
    this.#client = undefined;
    this.#heldSince = undefined;
    this.#lostOnce = true;
    this.#exporter = false; // the lock went with the connection
    void old?.end().catch(() => {});
    if (this.#closed || this.#retry) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      if (!this.#closed) this.start().catch(() => this.#reconnectLater());
    }, 1000);
    this.#retry.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    await this.#client?.end().catch(() => {});
  }
}
