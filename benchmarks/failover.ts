/**
 * pier's AS2 receiving on pg_auto_failover (a monitor and two PostgreSQL nodes on loopback ports,
 * test/helpers/auto-failover.ts), as a partner sees it: two `pier serve` processes, one AS2
 * receiver each, routed to a file writer, take messages at `--concurrency` from a partner that
 * sends again what got no receipt (test/helpers/as2-retrying-client.ts; pier's packer,
 * compressed, signed, encrypted, 2 KiB documents, signed synchronous receipts).
 *
 * - Receipts per second for `--seconds` with the synchronous standby attached, and the same
 *   on a database of the single PostgreSQL of DATABASE_URL (its own two processes), twice each
 *   in turns (the machine is shared); CPU milliseconds per message of
 *   each PostgreSQL server (the whole primary and standby, all their processes; the single
 *   PostgreSQL's backends of its database, as other sessions share it), of the pier processes,
 *   of this process (the partner), of the whole machine, and how busy the machine was.
 * - Under that load, `--rounds` times each of `--faults` (all three by default):
 *   `postmaster`, `kill -9` of the primary's postmaster alone (its keeper lives and reports it);
 *   `machine`, the primary's machine lost (`kill -9` of its keeper, then of its PostgreSQL; the
 *   machine comes back afterwards, as the next standby); and `switchover`,
 *   `pg_autoctl perform switchover`. For each, the seconds without a receipt (the longest gap
 *   between receipts from the event until receipts have gone on for 5 s).
 * - With the timeouts pier ships (deploy/pg_auto_failover/), or with `--timeouts defaults`
 *   pg_auto_failover's own.
 * - At the end, what became of the messages (test/helpers/as2-outcome.ts): with a receipt and
 *   not written, written twice, stored without a receipt, answers without a receipt by status.
 *
 * `--seconds 0` leaves out the receipts per second (the faults alone). Needs root and pg_autoctl:
 *
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench -- failover --rounds 3 --seconds 20
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench -- failover --rounds 3 --seconds 0 --faults postmaster,machine
 */
import { mkdirSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { makeParties } from '../test/as2/parties.js';
import { as2ReceiversOnProcesses } from '../test/helpers/as2-on-processes.js';
import { as2Outcome } from '../test/helpers/as2-outcome.js';
import { startAs2Load, type As2Load, type SentMessage } from '../test/helpers/as2-retrying-client.js';
import { autoFailoverMissing, query, startFailoverCluster } from '../test/helpers/auto-failover.js';
import { createTestDatabase } from '../test/helpers/database.js';
import { mustOn, type PierProcess } from '../test/helpers/process.js';
import { waitFor } from '../test/helpers/wait.js';
import { cpuMsOf, machineTicks, watchPostgresCpu } from './lib/cpu.js';
import { postmasterOf, watchServerCpu } from './lib/process-tree-cpu.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '16' },
    seconds: { type: 'string', default: '20' },
    faults: { type: 'string', default: 'postmaster,machine,switchover' },
    timeouts: { type: 'string', default: 'shipped' },
  },
});
const rounds = Number(values.rounds);
const concurrency = Number(values.concurrency);
const seconds = Number(values.seconds);
const faultNames = ['postmaster', 'machine', 'switchover'] as const;
type Fault = (typeof faultNames)[number];
const faults = values.faults.split(',') as Fault[];
const timeouts = values.timeouts as 'shipped' | 'defaults';
if (!faults.every((f) => faultNames.includes(f)) || !['shipped', 'defaults'].includes(timeouts)) {
  console.error(`--faults takes ${faultNames.join(', ')}; --timeouts shipped or defaults`);
  process.exit(2);
}
const missing = autoFailoverMissing();
if (missing) {
  console.error(`failover benchmark not run: ${missing}`);
  process.exit(2);
}
const log = (text: string) => process.stderr.write(`${text}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const teardowns: (() => Promise<unknown> | unknown)[] = [];
const t = { teardown: (fn: () => unknown) => void teardowns.push(fn) };
const work = mkdtempSync(path.join(tmpdir(), 'pier-bench-failover-'));
teardowns.push(() => rmSync(work, { recursive: true, force: true }));
const parties = makeParties();
teardowns.push(() => parties.remove());
let run = 0;

/** Two pier processes on `url`, one AS2 receiver each, routed to a writer into `<dir>/out`. */
async function pierPair(url: string) {
  const dir = path.join(work, `run-${++run}`);
  mkdirSync(dir);
  const outbox = path.join(dir, 'out');
  const { processes, urls } = await as2ReceiversOnProcesses(
    t,
    2,
    (n) => ({ databaseUrl: url, dataDir: path.join(dir, `data-${n}`), cwd: dir }),
    { fixtures: parties.fixtures, certFile: parties.alice.certFile, keyFile: parties.alice.keyFile },
    'out',
    async (first: PierProcess) => {
      await mustOn(first, '/plugins/configs?type=file-writer', {
        name: 'out',
        directory: outbox,
        max_concurrent_deliveries: 4,
      });
    },
  );
  return { processes, urls, directory: path.join(outbox, 'alice') };
}

/** Receipts per second over `seconds` of a load already running, with the CPU each part spent. */
async function rate(load: As2Load, pier: PierProcess[], servers: Record<string, () => { stop(): number }>) {
  const watches = Object.entries(servers).map(([name, watch]) => [name, watch()] as const);
  const pierBefore = pier.map((p) => cpuMsOf(p.child.pid!));
  const machineBefore = machineTicks();
  const clientBefore = process.cpuUsage();
  const before = load.receipts;
  const start = Date.now();
  await sleep(seconds * 1000);
  const messages = load.receipts - before;
  const elapsed = (Date.now() - start) / 1000;
  const machine = machineTicks();
  const perMessage = (ms: number) => Math.round((ms / Math.max(messages, 1)) * 1000) / 1000;
  const cpu: Record<string, number> = {};
  for (const [name, watch] of watches) cpu[name] = perMessage(watch.stop());
  cpu.pier = perMessage(pier.reduce((sum, p, i) => sum + cpuMsOf(p.child.pid!) - pierBefore[i]!, 0));
  const client = process.cpuUsage(clientBefore);
  // The partner: this process packs, signs and encrypts each message and checks its receipt.
  cpu.client = perMessage((client.user + client.system) / 1000);
  // Everything the machine ran (other sessions' work too), in ms of one core per message.
  cpu.machine = perMessage((machine.busy - machineBefore.busy) * 10);
  return {
    receipts_per_second: Math.round(messages / elapsed),
    cpu_ms_per_message: cpu,
    machine_busy:
      Math.round(((machine.busy - machineBefore.busy) / (machine.total - machineBefore.total)) * 100) / 100,
  };
}

/**
 * Seconds without a receipt after `at`: the longest gap between receipts (from `at` on), read
 * once receipts have gone on for 5 s after it, and at least 10 s after `at`.
 */
async function pauseAfter(load: As2Load, at: number): Promise<number> {
  const longestGap = () => {
    const times = load.messages
      .map((m) => m.receiptAt)
      .filter((r): r is number => r !== null && r >= at)
      .sort((x, y) => x - y);
    let gap = { ms: 0, end: at };
    let previous = at;
    for (const r of times) {
      if (r - previous > gap.ms) gap = { ms: r - previous, end: r };
      previous = r;
    }
    return { gap, last: previous };
  };
  const { gap } = await waitFor(
    () => {
      const now = Date.now();
      const found = longestGap();
      return now - at >= 10_000 && now - found.gap.end >= 5000 && now - found.last < 1000 && found;
    },
    'receipts going on again for 5 s',
    180_000,
    250,
  );
  return Math.round(gap.ms / 100) / 10;
}

try {
  const cluster = await startFailoverCluster(t, { timeouts });
  const onCluster = await pierPair(cluster.url);
  const single = seconds > 0 ? await createTestDatabase() : undefined;
  if (single) teardowns.push(() => single.drop());
  const alone = single ? await pierPair(single.url) : undefined;
  const primaryNode = async () => (await cluster.stable())!;
  let primary = await primaryNode();
  const standbyOf = (name: string) => cluster.nodes.find((n) => n.name !== name)!;
  const [replication] = await query<{ sync_state: string }>(
    primary.url,
    'select sync_state from pg_stat_replication',
  );
  const loadOn = (pair: typeof onCluster, run: string) =>
    startAs2Load({ urls: pair.urls, keys: parties.alice, concurrency, documentBytes: 2048, run });
  const clusterSent: SentMessage[] = [];

  // A B A B: the machine is shared, so each side is measured twice, in turns.
  const replicated: Awaited<ReturnType<typeof rate>>[] = [];
  const singleRates: Awaited<ReturnType<typeof rate>>[] = [];
  for (let turn = 0; single && alone && turn < 2; turn++) {
    let load = loadOn(onCluster, `sync-${turn}`);
    await waitFor(() => load.receipts >= 300, 'the first 300 receipts', 120_000, 200);
    log(`measuring ${seconds} s with the standby attached (${replication?.sync_state ?? 'none'})…`);
    replicated.push(
      await rate(load, onCluster.processes, {
        primary_whole: () => watchServerCpu(postmasterOf(primary.pgdata)),
        standby_whole: () => watchServerCpu(postmasterOf(standbyOf(primary.name).pgdata)),
        primary_backends: () => watchPostgresCpu('pier'),
      }),
    );
    log(JSON.stringify(replicated.at(-1)));
    clusterSent.push(...(await load.stop(30_000)));
    load = loadOn(alone, `one-${turn}`);
    await waitFor(() => load.receipts >= 300, 'the first 300 receipts', 120_000, 200);
    log(`measuring ${seconds} s on the single PostgreSQL…`);
    singleRates.push(await rate(load, alone.processes, { backends: () => watchPostgresCpu(single.name) }));
    log(JSON.stringify(singleRates.at(-1)));
    await load.stop(30_000);
  }
  for (const p of alone?.processes ?? []) await p.kill('SIGTERM');

  const load = loadOn(onCluster, 'failovers');
  await waitFor(() => load.receipts >= 300, 'the first 300 receipts', 120_000, 200);
  const pauses: Record<Fault, { seconds_without_receipt: number; answered_503: number }[]> = {
    postmaster: [],
    machine: [],
    switchover: [],
  };
  const count503 = () =>
    load.messages.reduce((n, m) => n + m.answers.filter((a) => a.status === 503).length, 0);
  for (let i = 0; i < rounds; i++) {
    for (const fault of faults) {
      await cluster.stable(180_000);
      await sleep(2000);
      const before503 = count503();
      const at = Date.now();
      const lost = fault === 'machine' ? await cluster.killNode() : undefined;
      if (fault === 'postmaster') await cluster.killPostmaster();
      if (fault === 'switchover') await cluster.switchover();
      pauses[fault].push({
        seconds_without_receipt: await pauseAfter(load, at),
        answered_503: count503() - before503,
      });
      log(`${fault} ${i + 1}: ${JSON.stringify(pauses[fault].at(-1))}`);
      // The machine comes back, as the next round's standby.
      if (lost) await cluster.restart(lost);
    }
  }
  clusterSent.push(...(await load.stop(120_000)));
  primary = await primaryNode();
  await waitFor(
    async () =>
      (
        await query<{ n: number }>(
          primary.url,
          "select count(*)::int as n from message where status <> 'Delivered'",
        )
      )[0]!.n === 0,
    'every message delivered',
    180_000,
    500,
  );
  const outcome = await as2Outcome(primary.url, clusterSent, onCluster.directory);
  for (const p of onCluster.processes) await p.kill('SIGTERM');

  console.log(
    JSON.stringify({
      benchmark: 'failover',
      concurrency,
      seconds,
      standby: replication?.sync_state ?? 'none attached',
      timeouts,
      with_sync_standby: replicated,
      single_postgresql: singleRates,
      postmaster_killed: pauses.postmaster,
      machine_lost: pauses.machine,
      switchover: pauses.switchover,
      outcome: {
        ...outcome,
        receiptedNotWritten: outcome.receiptedNotWritten.length,
        writtenWrong: outcome.writtenWrong.length,
        storedTwice: outcome.storedTwice.length,
        storedWithoutReceipt: outcome.storedWithoutReceipt.length,
        otherFiles: outcome.otherFiles.length,
      },
    }),
  );
} finally {
  for (const fn of teardowns.reverse()) await fn();
}
