/**
 * pier's connections on pg_auto_failover (a monitor and two PostgreSQL nodes on loopback ports,
 * test/helpers/auto-failover.ts): the seconds without a committed write after `kill -9` of the
 * primary's postmaster and after `pg_autoctl perform switchover`, over `--rounds` of each, and
 * the commit rate at `--concurrency` with the synchronous standby attached against the single
 * PostgreSQL of DATABASE_URL. Writes go through the flow's connections on the multi-host URL
 * (storage/flow-connections.ts), one insert per statement. Needs root and pg_autoctl.
 *
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench -- failover --rounds 3
 */
import { parseArgs } from 'node:util';
import { FlowConnections } from '../storage/flow-connections.js';
import { autoFailoverMissing, query, startFailoverCluster } from '../test/helpers/auto-failover.js';
import { createTestDatabase } from '../test/helpers/database.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '16' },
    seconds: { type: 'string', default: '10' },
  },
});
const rounds = Number(values.rounds);
const concurrency = Number(values.concurrency);
const seconds = Number(values.seconds);
const missing = autoFailoverMissing();
if (missing) {
  console.error(`failover benchmark not run: ${missing}`);
  process.exit(2);
}

const teardowns: (() => Promise<void> | void)[] = [];
const done = async () => {
  for (const fn of teardowns.reverse()) await fn();
};

/** Commits per second of `concurrency` writers inserting one row per statement for `seconds`. */
async function commitRate(url: string): Promise<number> {
  const flow = new FlowConnections({ url, applicationName: 'pier failover bench' }, concurrency);
  const setup = await flow.acquireConnection();
  await setup.query('create table if not exists bench_commit (id bigserial primary key, body text)');
  await flow.releaseConnection(setup);
  let commits = 0;
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      const connection = await flow.acquireConnection();
      try {
        while (Date.now() < end) {
          await connection.query('insert into bench_commit (body) values ($1)', ['x'.repeat(200)]);
          commits++;
        }
      } finally {
        await flow.releaseConnection(connection);
      }
    }),
  );
  await flow.close();
  return commits / seconds;
}

try {
  const cluster = await startFailoverCluster({ teardown: (fn) => void teardowns.push(fn) });
  const flow = new FlowConnections({ url: cluster.url, applicationName: 'pier failover bench' }, 2);
  teardowns.push(() => flow.close());
  const probe = await flow.acquireConnection();
  await probe.query('create table if not exists bench_probe (at timestamptz default now())');
  await flow.releaseConnection(probe);

  /** Seconds from now until an insert commits again, trying every 100 ms. */
  const pause = async (disrupt: () => Promise<unknown>): Promise<number> => {
    const start = Date.now();
    void disrupt();
    await new Promise((r) => setTimeout(r, 200));
    for (;;) {
      try {
        const connection = await flow.acquireConnection();
        try {
          await connection.query('insert into bench_probe default values');
        } finally {
          await flow.releaseConnection(connection);
        }
        const primary = await cluster.primary();
        if (primary) return (Date.now() - start) / 1000;
      } catch {
        // not yet
      }
      if (Date.now() - start > 120_000) throw new Error('no write within 120 s');
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const kills: number[] = [];
  const switchovers: number[] = [];
  for (let i = 0; i < rounds; i++) {
    await cluster.stable();
    kills.push(await pause(() => cluster.killPrimary()));
    console.error(`kill -9 ${i + 1}: ${kills.at(-1)} s`);
    await cluster.stable();
    switchovers.push(await pause(() => cluster.switchover()));
    console.error(`switchover ${i + 1}: ${switchovers.at(-1)} s`);
  }
  const primary = await cluster.stable();
  // The standby must be synchronous while the rate is measured, or the comparison says nothing.
  const [replication] = await query<{ sync_state: string; names: string }>(
    primary.url,
    "select sync_state, current_setting('synchronous_standby_names') as names from pg_stat_replication",
  );
  const replicated = await commitRate(cluster.url);
  const single = await createTestDatabase();
  teardowns.push(() => single.drop());
  const alone = await commitRate(single.url);
  console.log(
    JSON.stringify({
      kill9_seconds_without_writes: kills,
      switchover_seconds_without_writes: switchovers,
      concurrency,
      standby: replication ?? 'none attached',
      commits_per_second_with_sync_standby: Math.round(replicated),
      commits_per_second_single_postgresql: Math.round(alone),
    }),
  );
} finally {
  await done();
}
