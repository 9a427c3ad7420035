// Covers crash safety: a pier process is killed with SIGKILL in the middle of 1,000 files; after a restart every file is delivered once, none lost, no message doubled.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { readNumbered, writeNumbered } from '../helpers/numbered-files.js';
import { fileFlowOn, killablePier, mustOn } from '../helpers/process.js';
import { allDelivered } from '../helpers/row-counts.js';
import { waitFor } from '../helpers/wait.js';

const files = 1000;
const { dir, inbox, outbox, start, count } = await killablePier(t, 'pier-kill9-');

t.test('kill -9 during a run, then restart: all delivered, none lost', async (t) => {
  const first = await start();
  await fileFlowOn(first, dir, outbox);
  await writeNumbered(inbox, files);
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
  await allDelivered(count, files, 120_000);
  t.equal(await count('message'), files, 'one message per file: none lost, none doubled');
  t.equal(await count("message where status = 'Delivered'"), files);
  t.same(await readdir(inbox), [], 'every file was taken');
  t.equal((await readdir(path.join(dir, 'done', 'globex'))).length, files, 'and moved to processed');
  const { written, wrong } = await readNumbered(path.join(outbox, 'acme'), files);
  t.equal(written, files, 'every file written once, under its own name');
  t.same(wrong, [], 'every file has its own content');
  const retaken = await count('delivery where claims > 1');
  t.equal(retaken, inFlight, 'each delivery the dead process held was claimed again');
});
