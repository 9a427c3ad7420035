/**
 * pg_auto_failover on loopback ports for failover tests: its monitor and two PostgreSQL nodes
 * (a primary and a synchronous secondary), run as user postgres from Debian's
 * `pg-auto-failover-cli` and `postgresql-15-auto-failover`, each under a temporary directory,
 * with the timeouts pier ships in deploy/pg_auto_failover/ unless told to keep the defaults.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { Test } from 'tap';
import { freePort } from './free-port.js';
import { waitFor } from './wait.js';

const autoctl = '/usr/bin/pg_autoctl';
const pgBin = '/usr/lib/postgresql/15/bin';
const shipped = path.join(import.meta.dirname, '../../deploy/pg_auto_failover');

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
  /** The node the monitor has as primary now, or as wait_primary (reported and assigned). */
  primary(): Promise<FailoverNode | undefined>;
  /** Waits until one node is primary and the other a secondary, as assigned. */
  stable(timeoutMs?: number): Promise<FailoverNode>;
  /**
   * `kill -9` of the primary's postmaster alone; the node it was. Its keeper lives on, tells the
   * monitor that PostgreSQL is down and brings the node back as a standby.
   */
  killPostmaster(): Promise<FailoverNode>;
  /**
   * The primary's machine lost: `kill -9` of its keeper (every pg_autoctl process of the node),
   * then of its postmaster and the postmaster's children; the node it was. Nothing of it runs
   * until `restart`.
   */
  killNode(): Promise<FailoverNode>;
  /** A node whose machine was lost comes back: its keeper starts, as at boot, and rejoins it. */
  restart(node: FailoverNode): Promise<void>;
  /**
   * The primary cut off from the monitor and the standby, as a network cut looks from it: every
   * process of the monitor and of the standby stopped (SIGSTOP), their connections left open and
   * silent, `at` that time. `heal` lets them go on; `after` says, for a test that failed, what
   * the primary's keeper processes are doing and its last log lines.
   */
  cutOffPrimary(): Promise<{ node: FailoverNode; at: number; heal(): void; after(): string }>;
  /** The monitor's `pgautofailover.*` settings, in their units (ms for the timeouts). */
  monitorSettings(): Promise<Record<string, number>>;
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

export async function startFailoverCluster(
  t: Pick<Test, 'teardown'>,
  /** `defaults`: pg_auto_failover's own timeouts, to compare with the ones pier ships. */
  { timeouts = 'shipped' }: { timeouts?: 'shipped' | 'defaults' } = {},
): Promise<FailoverCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pier-failover-'));
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
  chownSync(dir, uid, gid);
  const children: ChildProcess[] = [];
  /** Each node's keeper, the process group that `serve` started for it. */
  const keepers = new Map<string, ChildProcess>();
  const env = [
    `PATH=${pgBin}:/usr/bin:/bin`,
    `XDG_CONFIG_HOME=${dir}/config`,
    `XDG_DATA_HOME=${dir}/data`,
    `XDG_RUNTIME_DIR=${dir}/run`,
    `HOME=${dir}`,
  ];
  const asPostgres = (args: string[], program = [autoctl]) => [
    '-u',
    'postgres',
    '--',
    'env',
    ...env,
    ...program,
    ...args,
  ];
  const run = async (args: string[]) => promisify(execFile)('runuser', asPostgres(args), { cwd: dir });
  const serve = (name: string, args: string[]) => {
    const log = openSync(path.join(dir, `${name}.log`), 'a');
    const child = spawn('runuser', asPostgres(args), {
      cwd: dir,
      detached: true,
      stdio: ['ignore', log, log],
    });
    children.push(child);
    keepers.set(name, child);
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
    // wait_primary takes writes too: it is where a new primary stays while the old one's
    // machine is away, with no standby to wait for.
    const name = rows.find(
      (s) => s.reportedstate === s.goalstate && ['primary', 'wait_primary'].includes(s.reportedstate),
    )?.nodename;
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
  if (timeouts === 'shipped') {
    for (const statement of sqlStatements(readFileSync(path.join(shipped, 'monitor-timeouts.sql'), 'utf8')))
      await query(monitorUrl.replace('autoctl_node@', 'postgres@'), statement);
    for (const node of nodes)
      await promisify(execFile)(
        'runuser',
        asPostgres([path.join(shipped, 'node-timeouts.sh')], [`PGDATA=${node.pgdata}`, 'sh']),
        { cwd: dir },
      );
  }
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
    async killPostmaster() {
      const node = await waitFor(primary, 'a primary to kill', 10_000, 200);
      process.kill(postmasterPid(node), 'SIGKILL');
      return node;
    },
    async killNode() {
      const node = await waitFor(primary, 'a primary to lose', 10_000, 200);
      const postmaster = postmasterPid(node);
      const group = keepers.get(node.name)!.pid!;
      const backends = processTable().filter((p) => p.parent === postmaster);
      // The keeper first, so that nothing of the node tells the monitor that PostgreSQL died or
      // starts it again: the monitor learns of the loss only from silence, as with a lost machine.
      // Read again until none is left, as a supervisor may have started one in between.
      for (let keeper = keeperOf(); keeper.length > 0; keeper = keeperOf()) keeper.forEach(kill);
      function keeperOf() {
        return processTable()
          .filter((p) => p.group === group && p.pid !== postmaster)
          .map((p) => p.pid);
      }
      kill(postmaster);
      for (const p of backends) kill(p.pid);
      return node;
    },
    async restart(node) {
      serve(node.name, ['run', '--pgdata', node.pgdata]);
    },
    async cutOffPrimary() {
      const node = await waitFor(primary, 'a primary to cut off', 10_000, 200);
      const standby = nodes.find((n) => n !== node)!;
      // Between two of the primary's reports, not during one: SIGSTOP leaves the kernel answering
      // for the stopped processes, so a query in flight at the cut would wait for its answer for
      // ever (Debian's pg_autoctl 2.0 sets no keepalives or timeout on a query to the monitor),
      // and the keeper, never counting the monitor lost, would never stop the primary; its next
      // report opens a connection, which times out. So the cut is made just after a report, and
      // kept only when the primary's keeper is then asleep between reports (pselect), not
      // waiting for an answer (poll); else it is undone and made again after the next report.
      // (The loaded runs where the primary never stopped had another cause, in pg_autoctl's
      // check itself: docs/high-availability.md, "Why there are never two primaries".)
      const reported = () =>
        query<{ at: string }>(
          monitorUrl,
          'select reporttime::text as at from pgautofailover.node where nodename = $1',
          [node.name],
        ).then((rows) => rows[0]?.at);
      const reporter = descendants(keepers.get(node.name)!.pid!).find((pid) =>
        commandLine(pid).startsWith('pg_autoctl: node active'),
      );
      for (let attempt = 1; ; attempt++) {
        const before = await reported();
        await waitFor(async () => (await reported()) !== before, "the primary's next report", 10_000, 20);
        const frozen = [keepers.get('monitor')!, keepers.get(standby.name)!].flatMap((keeper) =>
          descendants(keeper.pid!),
        );
        const at = Date.now();
        for (const pid of frozen) signal(pid, 'SIGSTOP');
        const heal = () => frozen.forEach((pid) => signal(pid, 'SIGCONT'));
        const after = () =>
          [
            `cut made at attempt ${attempt}; the primary's keeper processes (pid, syscall, command):`,
            ...descendants(keepers.get(node.name)!.pid!).map(
              (pid) => `${pid} ${syscallOf(pid)} ${commandLine(pid).slice(0, 80)}`,
            ),
            ...readFileSync(path.join(dir, `${node.name}.log`), 'utf8')
              .trimEnd()
              .split('\n')
              .slice(-25),
          ].join('\n');
        if (reporter === undefined || asleepBetweenReports(reporter) || attempt === 5)
          return { node, at, heal, after };
        heal();
      }
    },
    async monitorSettings() {
      const rows = await query<{ name: string; setting: string }>(
        monitorUrl,
        "select name, setting from pg_settings where name like 'pgautofailover.%'",
      );
      return Object.fromEntries(rows.map((r) => [r.name.replace('pgautofailover.', ''), Number(r.setting)]));
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
          // With the shipped timeouts (a health check of 2 s) a busy machine can make the monitor
          // doubt a node for a moment, and it then finds no primary to switch from: asked again
          // once the pair is stable again.
          const stderr = String((error as { stderr?: string }).stderr);
          if (attempt >= 5 || !/deadlock detected|couldn't find the primary node/.test(stderr)) throw error;
          await new Promise((resolve) => setTimeout(resolve, 2000));
          if (/couldn't find the primary node/.test(stderr)) await stable(120_000);
        }
      }
    },
  };
}

/** The node's postmaster now (from its postmaster.pid). */
export function postmasterPid(node: FailoverNode): number {
  return Number(readFileSync(path.join(node.pgdata, 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/** Every live process's id, parent and process group, from /proc. */
function processTable(): { pid: number; parent: number; group: number }[] {
  const table: { pid: number; parent: number; group: number }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name, in parentheses, may hold spaces: the fields after it are read.
      const [state, parent, group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // A killed process stays listed, a zombie, until its parent reaps it: it is gone.
      if (state === 'Z' || state === 'X') continue;
      table.push({ pid: Number(entry), parent: Number(parent), group: Number(group) });
    } catch {
      // ended while the table was read
    }
  }
  return table;
}

/** A process and every process under it, parents first. */
function descendants(root: number): number[] {
  const table = processTable();
  const found = [root];
  for (let i = 0; i < found.length; i++) for (const p of table) if (p.parent === found[i]) found.push(p.pid);
  return found;
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/**
 * Whether pg_autoctl's reporting process sleeps between two reports: in pselect6 (x86_64 270,
 * arm64 72), its wait for the next round, rather than in poll (libpq waiting for an answer) or
 * running. Unknown elsewhere: taken as asleep.
 */
function asleepBetweenReports(pid: number): boolean {
  const pselect = { x64: '270', arm64: '72' }[process.arch as 'x64' | 'arm64'];
  if (!pselect) return true;
  const now = syscallOf(pid);
  return now === '' || now.split(' ')[0] === pselect;
}

/** What the process is in: its syscall and first arguments, `running`, or '' when gone. */
function syscallOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/syscall`, 'utf8').trim().split(' ').slice(0, 3).join(' ');
  } catch {
    return '';
  }
}

function kill(pid: number) {
  signal(pid, 'SIGKILL');
}

function signal(pid: number, name: NodeJS.Signals) {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

/** The statements of a SQL file of one statement per `;`-ended line run, comments left out. */
function sqlStatements(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => !line.startsWith('--'))
    .join('\n')
    .split(/;\s*$/m)
    .map((s) => s.trim())
    .filter(Boolean);
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
