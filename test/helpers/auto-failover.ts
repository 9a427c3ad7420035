/**
 * pg_auto_failover on loopback ports for failover tests: its monitor and two PostgreSQL nodes
 * (a primary and a synchronous secondary), run as user postgres from Debian's
 * `pg-auto-failover-cli` and `postgresql-15-auto-failover`, each under a temporary directory.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { Test } from 'tap';
import { freePort } from './free-port.js';
import { waitFor } from './wait.js';

const autoctl = '/usr/bin/pg_autoctl';
const pgBin = '/usr/lib/postgresql/15/bin';

/** Why the failover tests cannot run here, or undefined when they can. */
export function autoFailoverMissing(): string | undefined {
  if (!existsSync(autoctl)) return `${autoctl} is not installed (apt-get install pg-auto-failover-cli)`;
  if (!existsSync('/usr/lib/postgresql/15/lib/pgautofailover.so'))
    return 'the pgautofailover extension is not installed (apt-get install postgresql-15-auto-failover)';
  if (process.getuid?.() !== 0)
    return 'pg_autoctl runs as user postgres, which needs the tests to run as root';
  return undefined;
}

export interface FailoverNode {
  name: string;
  port: number;
  pgdata: string;
  /** A superuser URL on this node alone. */
  url: string;
}

export interface FailoverCluster {
  /** The multi-host URL of the `pier` database, as an operator would set DATABASE_URL. */
  url: string;
  nodes: FailoverNode[];
  /** The node the monitor has as primary now (reported and assigned). */
  primary(): Promise<FailoverNode | undefined>;
  /** Waits until one node is primary and the other a secondary, as assigned. */
  stable(timeoutMs?: number): Promise<FailoverNode>;
  /** `kill -9` of the primary's postmaster; the node it was. */
  killPrimary(): Promise<FailoverNode>;
  /** `pg_autoctl perform switchover`, to its end. */
  switchover(): Promise<void>;
  /** The monitor's log of state changes, a line each, oldest first: to print when a check fails. */
  monitorEvents(): Promise<string[]>;
}

/**
 * A test on a pg_auto_failover cluster started for it, or, where pg_autoctl is not installed,
 * one passing line that says why it did not run.
 */
export function failoverTest(
  t: Test,
  name: string,
  timeout: number,
  body: (t: Test, cluster: FailoverCluster) => Promise<void>,
): void {
  const missing = autoFailoverMissing();
  if (missing) {
    t.comment(`skipped: ${missing}`);
    t.pass(`skipped: ${missing}`);
    return;
  }
  // The file's own timeout (the runner's five minutes) must not end it before the test's.
  t.setTimeout(timeout + 60_000);
  t.test(name, { timeout }, async (t) => body(t, await startFailoverCluster(t)));
}

export async function startFailoverCluster(t: Pick<Test, 'teardown'>): Promise<FailoverCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pier-failover-'));
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
  chownSync(dir, uid, gid);
  const children: ChildProcess[] = [];
  const env = [
    `PATH=${pgBin}:/usr/bin:/bin`,
    `XDG_CONFIG_HOME=${dir}/config`,
    `XDG_DATA_HOME=${dir}/data`,
    `XDG_RUNTIME_DIR=${dir}/run`,
    `HOME=${dir}`,
  ];
  const asPostgres = (args: string[]) => ['-u', 'postgres', '--', 'env', ...env, autoctl, ...args];
  const run = async (args: string[]) => promisify(execFile)('runuser', asPostgres(args), { cwd: dir });
  const serve = (name: string, args: string[]) => {
    const log = openSync(path.join(dir, `${name}.log`), 'a');
    const child = spawn('runuser', asPostgres(args), {
      cwd: dir,
      detached: true,
      stdio: ['ignore', log, log],
    });
    children.push(child);
  };

  const monitorPort = await freePort();
  const monitorData = path.join(dir, 'monitor');
  t.teardown(async () => {
    for (const data of [...nodes.map((n) => n.pgdata), monitorData])
      await run(['stop', '--pgdata', data, '--immediate']).catch(() => {});
    for (const child of children) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });
  const common = ['--hostname', '127.0.0.1', '--auth', 'trust', '--no-ssl'];
  serve('monitor', [
    'create',
    'monitor',
    '--pgdata',
    monitorData,
    '--pgport',
    String(monitorPort),
    ...common,
    '--run',
  ]);
  const monitorUrl = `postgresql://autoctl_node@127.0.0.1:${monitorPort}/pg_auto_failover`;
  const states = async () =>
    query<{ nodename: string; reportedstate: string; goalstate: string }>(
      monitorUrl,
      'select nodename, reportedstate, goalstate from pgautofailover.node order by nodeid',
    );
  await waitFor(
    () =>
      states().then(
        () => true,
        () => false,
      ),
    'the monitor',
    60_000,
    250,
  );

  const nodes: FailoverNode[] = [];
  for (const name of ['node1', 'node2']) {
    const port = await freePort();
    const pgdata = path.join(dir, name);
    nodes.push({ name, port, pgdata, url: `postgresql://postgres@127.0.0.1:${port}/pier` });
    serve(name, [
      'create', 'postgres', '--pgdata', pgdata, '--pgport', String(port), ...common,
      '--monitor', `${monitorUrl}?sslmode=disable`, '--name', name, '--dbname', 'pier', '--run',
    ]); // prettier-ignore
    if (name === 'node1')
      await waitFor(
        async () =>
          (await states().catch(() => [])).some(
            (s) => s.nodename === 'node1' && s.reportedstate === 'single',
          ),
        'the first node',
        60_000,
        250,
      );
  }
  const primary = async () => {
    const rows = await states().catch(() => []);
    const name = rows.find((s) => s.reportedstate === 'primary' && s.goalstate === 'primary')?.nodename;
    return nodes.find((n) => n.name === name);
  };
  const stable = async (timeoutMs = 120_000) =>
    waitFor(
      async () => {
        const rows = await states().catch(() => []);
        const settled = rows.filter((s) => s.reportedstate === s.goalstate);
        if (settled.length !== 2 || !settled.some((s) => s.reportedstate === 'secondary')) {
          // pg_basebackup of a new standby waits for a spread checkpoint (over a minute here):
          // one asked for now makes it immediate.
          for (const node of nodes) await query(node.url, 'checkpoint').catch(() => {});
          return undefined;
        }
        return primary();
      },
      'a primary and a synchronous secondary',
      timeoutMs,
      1000,
    );
  await stable();
  return {
    url: `postgresql://postgres@${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}/pier?target_session_attrs=read-write`,
    nodes,
    primary,
    stable,
    async monitorEvents() {
      const rows = await query<{ at: string; nodename: string; reportedstate: string; goalstate: string }>(
        monitorUrl,
        `select to_char(eventtime, 'HH24:MI:SS.MS') as at, nodename, reportedstate, goalstate
           from pgautofailover.event order by eventid`,
      );
      return rows.map((r) => `${r.at} ${r.nodename} ${r.reportedstate} -> ${r.goalstate}`);
    },
    async killPrimary() {
      const node = (await primary())!;
      const pid = Number(readFileSync(path.join(node.pgdata, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGKILL');
      return node;
    },
    async switchover() {
      // The monitor's own functions can deadlock with a keeper's report of its state, which
      // pg_autoctl gives up on at once ("deadlock detected" while updating pgautofailover.node):
      // asked again a moment later, it goes through.
      for (let attempt = 1; ; attempt++) {
        try {
          await run(['perform', 'switchover', '--pgdata', monitorData, '--formation', 'default']);
          return;
        } catch (error) {
          if (attempt >= 3 || !/deadlock detected/.test(String((error as { stderr?: string }).stderr)))
            throw error;
          await new Promise((resolve) => setTimeout(resolve, 2000));
        }
      }
    },
  };
}

/** One statement on a connection of its own. */
export async function query<T extends pg.QueryResultRow>(url: string, text: string, params: unknown[] = []) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end().catch(() => {});
  }
}
