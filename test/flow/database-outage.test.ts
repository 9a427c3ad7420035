// Covers a database outage in the middle of a file flow: every connection of a running pier to PostgreSQL is reset and refused for several seconds; pier carries on by itself once the database answers, every file is delivered exactly once, no message stays InProgress, and the outage is told in a handful of log lines, not one per failed statement.
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { sql } from '../helpers/database.js';
import { fileFlowOn, mustOn, spawnPier, flowDirs } from '../helpers/process.js';
import { databaseBehindProxy } from '../helpers/tcp-proxy.js';
import { rowCounter } from '../helpers/row-counts.js';
import { waitFor } from '../helpers/wait.js';

const files = 300;
const outageMs = 8_000;
const { db, proxy, url: throughProxy } = await databaseBehindProxy(t);

const { dir, inbox, outbox } = await flowDirs(t, 'pier-outage-');

/** Counted on the database directly, past the proxy. */
const count = rowCounter(db.url);

t.test('the database goes away mid-flow and comes back: nothing lost, nothing stuck', async (t) => {
  const pier = await spawnPier(t, {
    databaseUrl: throughProxy,
    dataDir: path.join(dir, 'data'),
    cwd: dir,
  });
  await fileFlowOn(pier, dir, outbox);
  for (let i = 0; i < files; i++) await writeFile(path.join(inbox, `f${i}.dat`), `file ${i}\n`.repeat(50));
  await mustOn(pier, '/services/file-poller/in/start');

  await waitFor(
    async () => (await count("delivery where state = 'delivered'")) >= 30,
    'the flow under way',
    60_000,
  );
  const linesBefore = pier.logLines.length;
  const cutAt = Date.now();
  await proxy.cut();
  await new Promise((resolve) => setTimeout(resolve, outageMs));
  const restoredAt = Date.now();
  await proxy.restore();
  t.comment(`the database was away for ${restoredAt - cutAt} ms`);

  await waitFor(
    async () => (await count("message where status = 'Delivered'")) === files,
    'every message delivered, without a restart',
    90_000,
    200,
  ).catch(async (error: unknown) => {
    const states = await sql(db.url, 'select state, count(*)::int as n from delivery group by state');
    const statuses = await sql(db.url, 'select status, count(*)::int as n from message group by status');
    const loud = pier.logLines.slice(linesBefore).filter((l) => l.level >= 40);
    t.comment(
      JSON.stringify({ states, statuses, files: (await readdir(inbox)).length, loud: loud.slice(0, 30) }),
    );
    throw error;
  });
  t.equal(await count("message where status <> 'Delivered'"), 0, 'no message left InProgress or failed');
  t.equal(await count('message'), files, 'each file accepted once');
  const written = (await readdir(path.join(outbox, 'acme'))).filter((f) => !f.startsWith('.'));
  t.equal(written.length, files, 'every file written');
  t.equal(new Set(written).size, files, 'none twice');

  // By the time pier wrote each line, not by when this busy test read it from pier's output.
  const writtenAt = (l: { time: unknown }) =>
    typeof l.time === 'number' ? l.time : Date.parse(String(l.time));
  const loud = pier.logLines.filter(
    (l) => l.level >= 40 && writtenAt(l) >= cutAt && writtenAt(l) < restoredAt,
  );
  const told = t.same(
    loud.map((l) => l.msg),
    ['the database does not answer; work in hand is kept and tried again until it does'],
    'one line when the database goes away, not one per failed statement',
  );
  const back = t.equal(
    pier.logLines.filter((l) => l.msg === 'the database answers again').length,
    1,
    'one line when the database answers again',
  );
  // What was logged instead, with each line's error: a loaded CI run failed both checks once.
  if (!told || !back)
    t.comment(
      JSON.stringify(
        pier.logLines
          .slice(linesBefore)
          .filter((l) => l.level >= 40 || /database/.test(String(l.msg)))
          .slice(0, 20),
      ),
    );
  await pier.kill('SIGTERM');
});
