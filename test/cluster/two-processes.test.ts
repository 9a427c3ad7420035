// Covers two pier processes on one database: 2,000 files taken by both pollers, every delivery claimed exactly once (the claims are counted), both processes deliver, and work one accepted is delivered by the other.
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { createTestDatabase, sql } from '../helpers/database.js';
import { tempDir } from '../helpers/flow.js';
import { fileFlowOn, spawnPier, mustOn, runningIn } from '../helpers/process.js';
import { waitFor } from '../helpers/wait.js';

const files = 2000;
const db = await createTestDatabase();
t.teardown(() => db.drop());
const dir = await tempDir(t, 'pier-cluster-');
const inbox = path.join(dir, 'in', 'globex');
const outbox = path.join(dir, 'out');
await mkdir(inbox, { recursive: true });
// Both processes share the working directory, so the payload store (./payloads) is shared.
const [a, b] = await Promise.all(
  ['a', 'b'].map((n) =>
    spawnPier(t, { databaseUrl: db.url, dataDir: path.join(dir, `data-${n}`), cwd: dir }),
  ),
);

const one = async <T>(text: string) => (await sql(db.url, text))[0] as T;

t.test('2,000 messages through two processes: each delivery claimed exactly once', async (t) => {
  // The poller is made stopped and started once the files are there.
  await fileFlowOn(a!, dir, outbox, { writer: { max_concurrent_deliveries: 4 } });
  // The writer was created enabled: it starts in both processes (the other follows within moments).
  for (const p of [a!, b!]) await runningIn(p, 'out');
  for (let i = 0; i < files; i++) await writeFile(path.join(inbox, `m${i}.txt`), `message ${i}\n`);
  // A start in one process is followed by every process.
  await mustOn(a!, '/services/file-poller/in/start');
  for (const p of [a!, b!]) await runningIn(p, 'in');

  await waitFor(
    async () =>
      (await one<{ n: number }>("select count(*)::int as n from delivery where state = 'delivered'")).n ===
      files,
    'all delivered',
    180_000,
    200,
  );
  const totals = await one<{ messages: number; deliveries: number; claims: number; most: number }>(
    `select (select count(*)::int from message) as messages, count(*)::int as deliveries,
            sum(claims)::int as claims, max(claims)::int as most from delivery`,
  );
  t.same(
    totals,
    { messages: files, deliveries: files, claims: files, most: 1 },
    'one message per file, one claim per delivery',
  );
  const byNode = await sql(db.url, 'select claimed_by, count(*)::int as n from delivery group by claimed_by');
  t.equal(byNode.length, 2, `both processes delivered: ${byNode.map((r) => r.n).join(' + ')}`);
  const crossed = await one<{ n: number }>(
    'select count(*)::int as n from delivery d join message m on m.id = d.message_id where d.claimed_by <> m.accepted_by',
  );
  t.ok(crossed.n > 0, `${crossed.n} deliveries were claimed by the process that did not accept them`);
  t.equal((await readdir(path.join(outbox, 'acme'))).filter((f) => !f.startsWith('.')).length, files);
  t.same(await readdir(inbox), []);
});
