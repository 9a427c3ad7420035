// Covers two pier processes on a pg_auto_failover pair (test/helpers/auto-failover.ts) through three losses of the primary's machine (kill -9 of its keeper, then of its PostgreSQL; the machine then comes back as the standby), each followed by a planned switchover, under AS2 load at concurrency 16 from a partner that sends again what got no receipt (test/helpers/as2-retrying-client.ts), a file-poller flow, and an event-stream subscriber that reconnects with Last-Event-ID: every message with a receipt is written once, one without was not stored or is written once, the answers without a receipt are 503s, the subscriber gets every history line once, and both processes receive, accept and write again after the failovers without a restart.
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t, { type Test } from 'tap';
import { makeParties } from '../as2/parties.js';
import { as2ReceiversOnProcesses } from '../helpers/as2-on-processes.js';
import { as2Outcome } from '../helpers/as2-outcome.js';
import { startAs2Load, type SentMessage } from '../helpers/as2-retrying-client.js';
import { failoverTest, query, type FailoverCluster } from '../helpers/auto-failover.js';
import { tempDir } from '../helpers/flow.js';
import { followHistory } from '../helpers/history-follower.js';
import { fileFlowOn, mustOn, type PierProcess } from '../helpers/process.js';
import { waitFor } from '../helpers/wait.js';

const files = 300;
const after = 80;
/** The primary's machine lost, then a switchover, this many times (three of each are asked for). */
const rounds = 3;
failoverTest(
  t,
  "AS2 and file flows on two processes survive three losses of the primary's machine and three switchovers",
  600_000,
  async (t, cluster) => {
    const dir = await tempDir(t, 'pier-db-failover-');
    const inbox = path.join(dir, 'in', 'globex');
    const outbox = path.join(dir, 'out');
    await mkdir(inbox, { recursive: true });
    const parties = makeParties();
    t.teardown(() => parties.remove());
    const { processes, urls, names } = await as2ReceiversOnProcesses(
      t,
      2,
      (n) => ({ databaseUrl: cluster.url, dataDir: path.join(dir, `data-${n}`), cwd: dir }),
      { fixtures: parties.fixtures, certFile: parties.alice.certFile, keyFile: parties.alice.keyFile },
      'out',
      // acme's files from `in/globex` (a poller, started by the test) to the writer `out`.
      (first) => fileFlowOn(first, dir, outbox, { writer: { max_concurrent_deliveries: 4 } }),
    );
    const [a, b] = processes as [PierProcess, PierProcess];
    for (const p of processes) await waitFor(() => running(p, 'out'), 'the writer running', 30_000, 100);

    const count = async (where: string, params: unknown[] = []) => {
      const primary = await cluster.primary();
      if (!primary) return -1;
      const rows = await query<{ n: number }>(primary.url, `select count(*)::int as n from ${where}`, params);
      return rows[0]!.n;
    };
    const events = await followHistory([a.url, b.url]);
    t.teardown(() => events.close());
    for (let i = 0; i < files; i++) await writeFile(path.join(inbox, `f${i}.dat`), `file ${i}\n`.repeat(20));
    await mustOn(a, '/services/file-poller/in/start');
    const load = startAs2Load({
      urls,
      keys: parties.alice,
      concurrency: 16,
      documentBytes: 2048,
      run: 'failover',
    });
    let loadStopped = false;
    t.teardown(async () => void (loadStopped || (await load.stop(0))));

    /** A wait that, when it times out, first says where the flows stand and what each process logged. */
    const until = <T>(
      probe: () => Promise<T | false | undefined> | T | false | undefined,
      what: string,
      ms: number,
    ) =>
      waitFor(probe, what, ms, 200).catch(async (error: unknown) => {
        const primary = await cluster.primary();
        if (primary)
          for (const statement of [
            'select source_name, status, accepted_by, count(*)::int as n from message group by 1, 2, 3',
            'select target, state, claimed_by, count(*)::int as n from delivery group by 1, 2, 3',
          ])
            t.comment(JSON.stringify(await query(primary.url, statement).catch(String)));
        // The deliveries still held and each one's history: the stage where they stopped.
        if (primary)
          t.comment(
            `held: ${JSON.stringify(
              await query(
                primary.url,
                `select d.id, d.message_id, d.claims, d.claimed_by, d.claimed_at, d.updated_at, d.last_error,
                        (select json_agg(json_build_object('at', h.created_at, 'kind', h.kind, 'state', h.new_state, 'text', h.text) order by h.id)
                           from message_history h where h.message_id = d.message_id) as history
                   from delivery d where d.state = 'delivering' order by d.id limit 10`,
              ).catch(String),
            )}`,
          );
        for (const [n, p] of processes.entries())
          t.comment(`process ${n}: ${JSON.stringify(p.logLines.filter((l) => l.level >= 40).slice(-30))}`);
        throw error;
      });
    const receiptsBy = (atLeast: number, what: string, timeoutMs: number) =>
      until(() => load.receipts >= atLeast, what, timeoutMs);
    await receiptsBy(100, 'AS2 receipts before the failovers', 60_000);
    for (let round = 1; round <= rounds; round++) {
      await cluster.stable(180_000);
      const lost = await cluster.killNode();
      events.note(`machine lost ${round}`);
      // The subscriber's stream is cut while no node takes writes: it comes back with its
      // Last-Event-ID, to the other process, as a browser does when its stream breaks.
      events.reconnect();
      const killedAt = load.receipts;
      await receiptsBy(killedAt + 100, `AS2 receipts again after the machine lost ${round}`, 90_000);
      await cluster.restart(lost);
      await cluster.stable(180_000);
      const switchedAt = load.receipts;
      const switched = cluster.switchover();
      events.note(`switchover ${round}`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      events.reconnect();
      await switched;
      await receiptsBy(switchedAt + 100, `AS2 receipts again after switchover ${round}`, 90_000);
    }

    // After the failovers, each process is to take work again without a restart: its receiver
    // accepts, its writer claims files the pollers accepted.
    const primary = (await cluster.primary())!;
    const [{ now } = { now: '' }] = await query<{ now: string }>(primary.url, 'select now()::text as now');
    for (let i = 0; i < after; i++) await writeFile(path.join(inbox, `after${i}.dat`), `after ${i}\n`);
    await receiptsBy(load.receipts + 200, 'AS2 receipts after the failovers', 90_000);
    const sent = await load.stop(60_000);
    loadStopped = true;

    const pollerWhere = "message where source_name = 'in'";
    await until(
      async () => (await count(`${pollerWhere} and status = 'Delivered'`).catch(() => -1)) === files + after,
      'every file delivered, without a restart',
      120_000,
    );
    await until(
      async () =>
        (await count("message where source_name <> 'in' and status <> 'Delivered'").catch(() => -1)) === 0,
      'every AS2 message stored delivered',
      120_000,
    );
    t.equal(await count(`${pollerWhere} and status <> 'Delivered'`), 0, 'no file left in progress or failed');
    t.equal(await count(pollerWhere), files + after, 'each file accepted once');
    const written = (await readdir(path.join(outbox, 'acme'))).filter((f) => !f.startsWith('.'));
    t.equal(written.length, files + after, 'every file written');
    t.same(await readdir(inbox), [], 'the inbox is empty');

    await checkAs2(t, cluster, sent, path.join(outbox, 'alice'));

    // Per process, after the failovers: AS2 messages its receiver accepted, and deliveries its
    // writer wrote (a handed one is its own receiver's; a queued one it claimed).
    const late = await query<{ node: number; source: string; accepted: number }>(
      primary.url,
      `select accepted_by as node, source_name as source, count(*)::int as accepted
         from message where created_at > $1 group by 1, 2 order by 1, 2`,
      [now],
    );
    const claims = await query<{ node: number; claimed: number }>(
      primary.url,
      `select d.claimed_by as node, count(*)::int as claimed from delivery d join message m on m.id = d.message_id
        where m.created_at > $1 and m.source_name = 'in' and d.claimed_by is not null group by 1`,
      [now],
    );
    t.comment(`after the failovers, per process: ${JSON.stringify({ late, claims })}`);
    const nodes = new Set(late.map((r) => r.node));
    t.equal(nodes.size, 2, 'both processes accepted messages after the failovers');
    for (const name of names)
      t.ok(
        late.some((r) => r.source === name && r.accepted > 0),
        `receiver ${name} accepted messages after the failovers`,
      );
    t.equal(claims.length, 2, "both processes' writers claimed files dropped after the failovers");

    // Every history line from the subscriber's first, once, in order.
    const last = (
      await query<{ id: string }>(primary.url, 'select max(id)::text as id from message_history')
    )[0]!;
    // Lines written after that read (a sweep's, say) may come too: the check stops at it.
    await waitFor(
      () => (events.ids.at(-1) ?? 0) >= Number(last.id),
      'the subscriber at the last line',
      30_000,
      200,
    ).catch((error: unknown) => {
      t.comment(
        `subscriber: ${events.ids.length} lines, the last ${events.ids.at(-1)}; the table's last ${last.id}; ${events.connections} streams, ${events.reloads} ended with reload; the streams: ${JSON.stringify(events.streams.slice(0, 30))}`,
      );
      throw error;
    });
    const got = events.ids.filter((id) => id <= Number(last.id));
    const stored = (
      await query<{ id: string }>(primary.url, 'select id from message_history where id >= $1 order by id', [
        events.ids[0],
      ])
    ).map((r) => Number(r.id));
    t.ok(stored.length > 1000, `the subscriber followed the flows (${stored.length} lines)`);
    if (!t.same(got, stored, 'the subscriber got every history line once, in order, with no gap')) {
      const kept = new Set(stored);
      t.comment(
        `lines handed out that the final primary does not have: ${ranges(got.filter((id) => !kept.has(id)))}`,
      );
      t.comment(`the monitor's states: ${(await cluster.monitorEvents().catch(() => [])).join('; ')}`);
    }
    t.equal(events.reloads, 0, 'no stream ended with reload (more missed than a replay holds)');
    t.ok(
      events.connections >= 1 + 2 * rounds,
      `the subscriber connected again (${events.connections} streams)`,
    );
    for (const p of processes) t.equal((await p.call('GET', '/messages')).status, 200, 'each API answers');
  },
);

/**
 * Each message with a processed receipt has its file, written once with its document; each
 * without one has no message stored; every answer that was not a receipt was a 503 or no
 * answer, and a 503 came (the failovers are seen by the sender as such).
 */
async function checkAs2(t: Test, cluster: FailoverCluster, sent: SentMessage[], directory: string) {
  const o = await as2Outcome((await cluster.primary())!.url, sent, directory);
  t.comment(
    `AS2: ${o.sent} sent, ${o.withReceipt} with a receipt, ${o.sentAgain} sent again; ` +
      `answers without a receipt by status: ${JSON.stringify(o.answersWithoutReceipt)}`,
  );
  t.ok(o.withReceipt > 400, 'AS2 messages received through the failovers');
  t.same(
    Object.keys(o.answersWithoutReceipt).filter((status) => status !== '503' && status !== '0'),
    [],
    'no answer without a receipt other than 503 (or none: the connection failed)',
  );
  t.ok((o.answersWithoutReceipt['503'] ?? 0) > 0, 'the failovers were answered 503');
  t.equal(o.bad503s, 0, 'each 503 with Retry-After and no receipt in it');
  t.same(o.storedTwice, [], 'no AS2 message stored twice');
  t.same(o.receiptedNotWritten, [], 'every message with a receipt is written');
  t.same(o.writtenWrong, [], 'with its document');
  t.same(o.storedWithoutReceipt, [], 'a message that never got a receipt is not stored');
  t.same(o.otherFiles, [], 'no other file (a document written twice would be one)');
}

async function running(p: PierProcess, name: string) {
  const list = (await p.call('GET', '/services')).body.data as { name: string; status: string }[];
  return list.some((s) => s.name === name && s.status === 'running') || undefined;
}

/** `1, 2, 3, 7` → `1-3, 7`. */
function ranges(ids: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < ids.length; i++) {
    const from = ids[i]!;
    while (i + 1 < ids.length && ids[i + 1] === ids[i]! + 1) i++;
    out.push(ids[i] === from ? `${from}` : `${from}-${ids[i]}`);
  }
  return out.join(', ');
}
