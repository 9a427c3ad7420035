// Covers crash safety: a pier process is killed with SIGKILL in the middle of 1,000 files; after a restart every file is delivered once, none lost, no message doubled.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { createTestDatabase, sql } from '../helpers/database.js';
import { tempDir } from '../helpers/flow.js';
import { fileFlowOn, spawnPier, mustOn } from '../helpers/process.js';
import { waitFor } from '../helpers/wait.js';

const files = 1000;
const db = await createTestDatabase();
t.teardown(() => db.drop());
const dir = await tempDir(t, 'pier-kill9-');
const inbox = path.join(dir, 'in', 'globex');
const outbox = path.join(dir, 'out');
await mkdir(inbox, { recursive: true });
const start = () => spawnPier(t, { databaseUrl: db.url, dataDir: path.join(dir, 'data'), cwd: dir });
const content = (i: number) => `${String(i).padStart(4, '0')}:`.padEnd(4096, 'x');

const count = async (where: string) =>
  Number((await sql(db.url, `select count(*)::int as n from ${where}`))[0]!.n);

t.test('kill -9 during a run, then restart: all delivered, none lost', async (t) => {
  const first = await start();
  await fileFlowOn(first, dir, outbox);
  for (let i = 0; i < files; i++) await writeFile(path.join(inbox, `f${i}.dat`), content(i));
  await mustOn(first, '/services/file-poller/in/start');

  // Killed while files are still being taken and delivered.
  await waitFor(async () => (await count('message')) >= 200, 'the run under way', 60_000, 5);
  await first.kill('SIGKILL');
  const deliveredAtKill = await count("delivery where state = 'delivered'");
  const inFlight = await count("delivery where state = 'delivering'");
  const leftInInbox = (await readdir(inbox)).length;
  const acceptedAtKill = await count('message');
  t.ok(
    deliveredAtKill < files && acceptedAtKill < files,
    `killed mid-run: ${acceptedAtKill} accepted, ${deliveredAtKill} delivered, ${inFlight} claimed, ${leftInInbox} files not yet moved`,
  );

  // The instances are enabled, so the new process starts them itself.
  await start();
  await waitFor(
    async () => (await count("delivery where state = 'delivered'")) === files,
    'all delivered',
    120_000,
    100,
  );

  t.equal(await count('message'), files, 'one message per file: none lost, none doubled');
  t.equal(await count("message where status = 'Delivered'"), files);
  t.same(await readdir(inbox), [], 'every file was taken');
  t.equal((await readdir(path.join(dir, 'done', 'globex'))).length, files, 'and moved to processed');
  const written = (await readdir(path.join(outbox, 'acme'))).filter((f) => !f.startsWith('.'));
  t.equal(written.length, files, 'every file written once, under its own name');
  const wrong: string[] = [];
  for (let i = 0; i < files; i++) {
    const bytes = await readFile(path.join(outbox, 'acme', `f${i}.dat`), 'utf8');
    if (bytes !== content(i)) wrong.push(`f${i}.dat`);
  }
  t.same(wrong, [], 'every file has its own content');
  const retaken = await count('delivery where claims > 1');
  t.equal(retaken, inFlight, 'each delivery the dead process held was claimed again');
});
