// Covers an acceptance that commits while its answer is lost (the database connection fails after the commit): the file poller and the AS2 receiver keep what they stored for it, so the message that was stored has its document and is delivered whole, once; the copy taken or sent again is a duplicate whose own stages go; and stages of acceptances that did not commit are removed once the database answers again.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { sql } from '../helpers/database.js';
import { fileFlowOn, mustOn, spawnPier, flowDirs } from '../helpers/process.js';
import { databaseBehindProxy } from '../helpers/tcp-proxy.js';
import { rowCounter } from '../helpers/row-counts.js';
import { waitFor } from '../helpers/wait.js';

t.test('a file whose acceptance committed with its answer lost is delivered whole, once', async (t) => {
  const { db, proxy, url: throughProxy } = await databaseBehindProxy(t);
  const { dir, inbox, outbox } = await flowDirs(t, 'pier-answer-lost-');
  const dataDir = path.join(dir, 'data');
  const count = rowCounter(db.url);

  const pier = await spawnPier(t, { databaseUrl: throughProxy, dataDir, cwd: dir });
  await fileFlowOn(pier, dir, outbox);
  await mustOn(pier, '/services/file-poller/in/start');
  // A first file through, so the poller's next acceptance is one statement (it has read the
  // routes and names): that statement is the one whose answer is lost.
  await writeFile(path.join(inbox, 'first.dat'), 'first\n');
  await waitFor(
    async () => (await count("message where status = 'Delivered'")) === 1,
    'the first file',
    30_000,
  );
  // Larger than what an acceptance carries inline: the poller stores it before the acceptance.
  const document = Buffer.alloc(300 * 1024, 'order line\n');
  proxy.muffle();
  await writeFile(path.join(inbox, 'order.dat'), document);
  await waitFor(async () => (await count('message')) === 2, 'the acceptance committed', 30_000, 100);
  await proxy.cut();
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await proxy.restore();

  await waitFor(
    async () => (await count("message where status = 'Delivered'")) === 2,
    'the stored message delivered',
    60_000,
    200,
  ).catch(async (error: unknown) => {
    const history = await sql(db.url, 'select kind, text from message_history order by id');
    t.comment(JSON.stringify({ history, loud: pier.logLines.filter((l) => l.level >= 40).slice(-20) }));
    throw error;
  });
  t.equal(await count('message'), 2, 'the file taken again was a duplicate, not a third message');
  const written = (await readdir(path.join(outbox, 'acme'))).filter((f) => f.startsWith('order'));
  t.equal(written.length, 1, 'one file written');
  t.ok((await readFile(path.join(outbox, 'acme', written[0]!))).equals(document), 'with the whole document');
  t.same(await readdir(inbox), [], 'the file left the inbox');
  const [stored] = await sql(db.url, "select id::text as id from message where file_name = 'order.dat'");
  await waitFor(
    async () => (await readdir(path.join(dataDir, 'payloads'))).join() === stored!.id,
    'the store holding the stored message alone (the duplicate copy removed)',
    10_000,
    100,
  );
  await pier.kill('SIGTERM');
});
