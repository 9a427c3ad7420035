// Covers two pier processes on one database: 2,000 files taken by both pollers, every delivery claimed exactly once (the claims are counted), both processes deliver, and work one accepted is delivered by the other.
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { createTestDatabase } from '../helpers/database.js';
import { fileFlowOn, flowDirs, spawnPier, mustOn, runningIn } from '../helpers/process.js';
import { allDelivered, deliveryClaims, rowCounter } from '../helpers/row-counts.js';

const files = 2000;
const db = await createTestDatabase();
t.teardown(() => db.drop());
const { dir, inbox, outbox } = await flowDirs(t, 'pier-cluster-');
// Both processes share the working directory, so the payload store (./payloads) is shared.
const [a, b] = await Promise.all(
  ['a', 'b'].map((n) =>
    spawnPier(t, { databaseUrl: db.url, dataDir: path.join(dir, `data-${n}`), cwd: dir }),
  ),
);

t.test('2,000 messages through two processes: each delivery claimed exactly once', async (t) => {
  // The poller is made stopped and started once the files are there.
  await fileFlowOn(a!, dir, outbox, { writer: { max_concurrent_deliveries: 4 } });
  // The writer was created enabled: it starts in both processes (the other follows within moments).
  for (const p of [a!, b!]) await runningIn(p, 'out');
  for (let i = 0; i < files; i++) await writeFile(path.join(inbox, `m${i}.txt`), `message ${i}\n`);
  // A start in one process is followed by every process.
  await mustOn(a!, '/services/file-poller/in/start');
  for (const p of [a!, b!]) await runningIn(p, 'in');

  await allDelivered(rowCounter(db.url), files, 180_000, 'all delivered', 200);
  const { totals, byNode, crossed } = await deliveryClaims(db.url);
  t.same(
    totals,
    { messages: files, deliveries: files, claims: files, most: 1 },
    'one message per file, one claim per delivery',
  );
  t.equal(byNode.length, 2, `both processes delivered: ${byNode.map((r) => r.n).join(' + ')}`);
  t.ok(crossed > 0, `${crossed} deliveries were claimed by the process that did not accept them`);
  t.equal((await readdir(path.join(outbox, 'acme'))).filter((f) => !f.startsWith('.')).length, files);
  t.same(await readdir(inbox), []);
});
