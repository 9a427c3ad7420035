// Covers two pier processes on different data and working directories sharing one PostgreSQL and one S3 bucket (s3rver): 300 files above the inline limit taken by the pollers, each delivered exactly once (claims counted), by both processes, deliveries crossing between them, every payload in the bucket and downloadable byte for byte from both processes. PIER_S3_CLUSTER_MESSAGES changes the count: PIER_S3_CLUSTER_MESSAGES=2000 is the figure (66 s on a quiet machine, over 5 minutes at load 16–20); 300 keeps the suite's time down and still has both processes claim from one queue at once, which is what exactly-once is about.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { createMigratedDatabase, sql } from '../helpers/database.js';
import { fileFlowOn, flowDirs, spawnPier, runningIn } from '../helpers/process.js';
import { startS3 } from '../helpers/s3.js';
import { allDelivered, deliveryClaims, rowCounter } from '../helpers/row-counts.js';
import { limits } from '../../limits/limits.js';

const files = Number(process.env.PIER_S3_CLUSTER_MESSAGES ?? 300);
const s3 = await startS3(t);
const db = await createMigratedDatabase();
t.teardown(() => db.drop());
for (const [column, value] of Object.entries(s3.settings)) {
  await sql(db.url, `update settings set ${column} = $1`, [value]);
}
const { dir, inbox, outbox } = await flowDirs(t, 'pier-s3-cluster-');
// Separate working directories: nothing is shared but the database and the bucket.
const [a, b] = await Promise.all(
  ['a', 'b'].map(async (n) => {
    await mkdir(path.join(dir, `cwd-${n}`));
    return spawnPier(t, {
      databaseUrl: db.url,
      dataDir: path.join(dir, `data-${n}`),
      cwd: path.join(dir, `cwd-${n}`),
      env: { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'cluster-test-secret' },
    });
  }),
);

/** Each file just above the inline limit, so every payload lives in the bucket. */
const contentOf = (i: number) => Buffer.alloc(limits.inlineMaxBytes + 100, `message ${i};`);
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

t.test(`${files} messages through two processes on one bucket: each delivered exactly once`, async (t) => {
  await fileFlowOn(a!, dir, outbox, { writer: { max_concurrent_deliveries: 4 }, poller: { enabled: true } });
  // Created enabled, each instance starts in both processes (the other follows within moments).
  await Promise.all([a!, b!].map((p) => runningIn(p, 'out')));
  // Written a few at a time, each under a hidden name and renamed, as a well-behaved producer does.
  await Promise.all(
    Array.from({ length: 8 }, async (_, k) => {
      for (let i = k; i < files; i += 8) {
        await writeFile(path.join(inbox, `.m${i}.txt`), contentOf(i));
        await rename(path.join(inbox, `.m${i}.txt`), path.join(inbox, `m${i}.txt`));
      }
    }),
  );
  await Promise.all([a!, b!].map((p) => runningIn(p, 'in')));

  await allDelivered(rowCounter(db.url), files, 600_000, 'all delivered', 500);
  const { totals, byNode, crossed } = await deliveryClaims(db.url);
  t.same(totals, { messages: files, deliveries: files, claims: files, most: 1 }, 'one claim per delivery');
  t.equal(byNode.length, 2, `both processes delivered: ${byNode.map((r) => r.n).join(' + ')}`);
  t.ok(crossed > 0, `${crossed} messages received by one process were delivered by the other`);

  const written = (await readdir(path.join(outbox, 'acme'))).filter((f) => !f.startsWith('.'));
  t.equal(written.length, files);
  const ids = (await sql(db.url, 'select id::text as id, file_name from message')) as {
    id: string;
    file_name: string;
  }[];
  t.equal(await s3.countObjects(), files, 'one object per message in the bucket');

  // Every payload from both processes, a few at a time.
  let wrong = 0;
  const queue = [...ids];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let m = queue.pop(); m; m = queue.pop()) {
        const expected = sha(contentOf(Number(m.file_name.slice(1, -4))));
        for (const p of [a!, b!]) {
          const r = await fetch(`${p.url}/api/v1/messages/${m.id}/payload`);
          if (r.status !== 200 || sha(Buffer.from(await r.arrayBuffer())) !== expected) wrong++;
        }
      }
    }),
  );
  t.equal(wrong, 0, `all ${files} payloads downloaded byte for byte from both processes`);
  const sample = await readFile(path.join(outbox, 'acme', 'm0.txt'));
  t.ok(sample.equals(contentOf(0)), 'the written file is the payload');
  t.same(await readdir(inbox), []);
});
