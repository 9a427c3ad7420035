// Covers crash safety of the AS2 receive path with the hand-off to a file writer: a real `pier serve` under AS2 load at concurrency 16 (10 KiB and 1 MiB documents, compressed, signed, encrypted, signed receipts) from a partner that sends again whatever got no receipt is killed with SIGKILL at 20 random moments and started again each time; the kills land while documents are handed and not yet accepted, accepted and not yet named, and named and not yet recorded; afterwards every receipted document is in the target directory exactly once with its bytes, nothing is left in .pier-tmp, every message is Delivered, and each restart logged what its recovery found.
import { readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { makeParties } from '../as2/parties.js';
import { as2ReceiversOnProcesses } from '../helpers/as2-on-processes.js';
import { as2Outcome } from '../helpers/as2-outcome.js';
import { startAs2Load } from '../helpers/as2-retrying-client.js';
import { query } from '../helpers/auto-failover.js';
import { createTestDatabase } from '../helpers/database.js';
import { tempDir } from '../helpers/flow.js';
import { mustOn, spawnPier, type PierProcess } from '../helpers/process.js';
import { seededRandom } from '../helpers/seeded.js';
import { waitFor } from '../helpers/wait.js';

/** Kill points in the run (the floor is twenty). */
const kills = Number(process.env.PIER_KILL9_POINTS ?? 20);
t.setTimeout(900_000);

const db = await createTestDatabase();
t.teardown(() => db.drop());
const dir = await tempDir(t, 'pier-as2-kill9-');
const outbox = path.join(dir, 'out');
const written = path.join(outbox, 'alice');
const temporaries = path.join(outbox, '.pier-tmp');
const parties = makeParties();
t.teardown(() => parties.remove());
const options = { databaseUrl: db.url, dataDir: path.join(dir, 'data'), cwd: dir };

const {
  processes: [first],
  urls,
  names,
} = await as2ReceiversOnProcesses(
  t,
  1,
  () => options,
  { fixtures: parties.fixtures, certFile: parties.alice.certFile, keyFile: parties.alice.keyFile },
  'out',
  (p) => mustOn(p, '/plugins/configs?type=file-writer', { name: 'out', directory: outbox }).then(() => {}),
);
const random = seededRandom(Number(process.env.PIER_KILL9_SEED ?? 66));
const count = async (where: string, params: unknown[] = []) =>
  (await query<{ n: number }>(db.url, `select count(*)::int as n from ${where}`, params))[0]!.n;

/** What was under way in the process killed, read from its directory and the database. */
interface AtKill {
  /** Handed files whose message is not stored: handed, the acceptance not committed. */
  handedNotAccepted: number;
  /** Handed deliveries held by the dead node whose file has no name: accepted, not named. */
  acceptedNotNamed: number;
  /** Held by the dead node with the file named: named, its delivery not yet recorded. */
  namedNotRecorded: number;
}

async function underWay(node: number): Promise<AtKill> {
  const handed = (await readdir(temporaries).catch(() => [] as string[]))
    .map((f) => /^h-(\d+)-([0-9a-f-]{36})\.tmp$/.exec(f))
    .filter((m) => m !== null && Number(m[1]) === node)
    .map((m) => m![2]!);
  const stored = new Set(
    (
      await query<{ id: string }>(db.url, 'select id::text as id from message where id = any($1::uuid[])', [
        handed,
      ])
    ).map((r) => r.id),
  );
  const held = await query<{ file_name: string }>(
    db.url,
    `select m.file_name from delivery d join message m on m.id = d.message_id
      where d.state = 'delivering' and d.claimed_by = $1 and d.attempts = 1
        and exists (select 1 from message_history h where h.delivery_id = d.id and h.text like 'Writing %')`,
    [node],
  );
  const named = held.filter((h) => existsSync(path.join(written, h.file_name))).length;
  return {
    handedNotAccepted: handed.filter((id) => !stored.has(id)).length,
    acceptedNotNamed: held.length - named,
    namedNotRecorded: named,
  };
}

t.test(`kill -9 at ${kills} moments under AS2 load: every receipted document written once`, async (t) => {
  // Most senders send small documents; two send 1 MiB ones, whose writes take longest.
  const small = startAs2Load({
    urls,
    keys: parties.alice,
    concurrency: 14,
    documentBytes: 10 * 1024,
    run: 's',
  });
  const large = startAs2Load({
    urls,
    keys: parties.alice,
    concurrency: 2,
    documentBytes: 1024 * 1024,
    run: 'l',
    compress: false,
  });
  const receipts = () => small.receipts + large.receipts;
  let stopped = false;
  t.teardown(async () => void (stopped || (await Promise.all([small.stop(0), large.stop(0)]))));

  const atKills: AtKill[] = [];
  const began = Date.now();
  const restarts: number[] = [];
  let current = first!;
  const started: PierProcess[] = [first!];
  for (let k = 1; k <= kills; k++) {
    const before = receipts();
    await waitFor(() => receipts() >= before + 10, `receipts flowing before kill ${k}`, 120_000, 20);
    // A random moment within the next second and a half of load.
    await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 1500)));
    // The node number of the process about to be killed: the one that accepts now.
    const node = (
      await query<{ n: number }>(
        db.url,
        'select accepted_by as n from message order by created_at desc limit 1',
      )
    )[0]!.n;
    await current.kill('SIGKILL');
    atKills.push(await underWay(node));
    const restarting = Date.now();
    current = await spawnPier(t, options);
    restarts.push(Date.now() - restarting);
    started.push(current);
    await waitFor(
      async () => {
        const list = (await current.call('GET', '/services')).body.data as { name: string; status: string }[];
        return list.some((s) => s.name === names[0] && s.status === 'running') || undefined;
      },
      `the receiver running again after kill ${k}`,
      60_000,
      100,
    );
  }

  t.comment(
    `${kills} kills in ${Math.round((Date.now() - began) / 1000)} s; restarts (ms): ${restarts.join(', ')}`,
  );
  const sent = [...(await small.stop(120_000)), ...(await large.stop(120_000))];
  stopped = true;
  t.comment(`under way at each kill: ${JSON.stringify(atKills)}`);
  const hit = (key: keyof AtKill) => atKills.filter((a) => a[key] > 0).length;
  t.ok(
    hit('handedNotAccepted') > 0,
    `kills between the hand-off and the acceptance: ${hit('handedNotAccepted')}`,
  );
  t.ok(
    hit('acceptedNotNamed') > 0,
    `kills between the acceptance and the naming: ${hit('acceptedNotNamed')}`,
  );
  t.ok(hit('namedNotRecorded') > 0, `kills between the naming and the record: ${hit('namedNotRecorded')}`);

  await waitFor(
    async () => (await count("message where status <> 'Delivered'")) === 0,
    'every message delivered',
    180_000,
    200,
  ).catch(async (error: unknown) => {
    t.comment(
      JSON.stringify(
        await query(
          db.url,
          'select target, state, claimed_by, count(*)::int as n from delivery group by 1, 2, 3',
        ),
      ),
    );
    t.comment(`services: ${JSON.stringify((await current.call('GET', '/services')).body.data)}`);
    t.comment(`its log: ${JSON.stringify(current.logLines.filter((l) => l.level >= 40).slice(-40))}`);
    throw error;
  });
  await waitFor(
    async () => (await readdir(temporaries).catch(() => [])).length === 0,
    'nothing left in .pier-tmp',
    120_000,
    500,
  ).catch(async (error: unknown) => {
    t.comment(`left in .pier-tmp: ${(await readdir(temporaries)).join(', ')}`);
    throw error;
  });

  const o = await as2Outcome(db.url, sent, written);
  t.comment(
    `${kills} kills; AS2: ${o.sent} sent, ${o.withReceipt} with a receipt, ${o.sentAgain} sent again; ` +
      `answers without a receipt by status: ${JSON.stringify(o.answersWithoutReceipt)}`,
  );
  t.equal(o.withReceipt, o.sent, 'every message got its receipt in the end');
  t.same(o.receiptedNotWritten, [], 'every receipted document is in the target');
  t.same(o.writtenWrong, [], 'with its bytes');
  t.same(o.storedTwice, [], 'no AS2 message stored twice');
  t.same(o.otherFiles, [], 'no other file: none written twice');
  t.equal(await count("message where source_type = 'as2-receiver'"), o.sent, 'one message per document');
  t.equal(
    await count(
      `message_history h join delivery d on d.id = h.delivery_id
        where h.text like 'Written to %' and d.state <> 'delivered'`,
    ),
    0,
    'no history line says written for a delivery that is not delivered',
  );
  const resolved = started
    .slice(1)
    .flatMap((p) => p.logLines.filter((l) => l.msg === 'resolved the handed files a stop or a crash left'));
  t.comment(
    `handed files resolved, as logged: ${JSON.stringify(resolved.map((l) => [l.found, l.queued, l.removed, l.held]))}`,
  );
  t.ok(resolved.length > 0, 'the restarted processes logged the handed files they resolved');
  t.ok(
    started
      .slice(1)
      .some((p) => p.logLines.some((l) => /^took back the deliveries ended processes held/.test(l.msg))),
    'a restart logged the deliveries it took back',
  );
});
