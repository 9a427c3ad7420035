// Covers a clean stop in the middle of a 2,000-file flow: SIGTERM makes `pier serve`
// exit 0 within PIER_SHUTDOWN_TIMEOUT with nothing left claimed; a second process, seen
// `starting` then `ready` on GET /ready, delivers the rest; every file exactly once.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { createTestDatabase } from '../helpers/database.js';
import { freePort } from '../helpers/free-port.js';
import { readNumbered, writeNumbered } from '../helpers/numbered-files.js';
import { fileFlowOn, flowDirs, spawnPier, mustOn, terminate } from '../helpers/process.js';
import { allDelivered, rowCounter } from '../helpers/row-counts.js';
import { waitFor } from '../helpers/wait.js';

const files = 2000;
const shutdownTimeoutSeconds = 20;
const db = await createTestDatabase();
t.teardown(() => db.drop());
const { dir, inbox, outbox } = await flowDirs(t, 'pier-drain-flow-');
const start = (port = 0) =>
  spawnPier(t, {
    databaseUrl: db.url,
    dataDir: path.join(dir, 'data'),
    cwd: dir,
    env: { PIER_SHUTDOWN_TIMEOUT: String(shutdownTimeoutSeconds), HTTP_PORT: String(port) },
  });
const count = rowCounter(db.url);

/** Every answer GET /ready gives at `port` until it says ready, in order, without repeats. */
async function readinessUntilReady(port: number): Promise<string[]> {
  const seen: string[] = [];
  await waitFor(
    async () => {
      const answer = await fetch(`http://127.0.0.1:${port}/ready`).catch(() => undefined);
      if (!answer) return false;
      const body = (await answer.json()) as { status: string };
      const said = `${answer.status} ${body.status}`;
      if (seen.at(-1) !== said) seen.push(said);
      return answer.status === 200;
    },
    'the second process ready',
    60_000,
    10,
  );
  return seen;
}

t.test(
  'SIGTERM mid-flow: exit 0 in time, nothing held; the next process delivers the rest once',
  async (t) => {
    const first = await start();
    await fileFlowOn(first, dir, outbox);
    await writeNumbered(inbox, files);
    t.equal((await fetch(`${first.url}/ready`)).status, 200, 'the first process is ready');
    await mustOn(first, '/services/file-poller/in/start');

    await waitFor(async () => (await count('message')) >= 300, 'the run under way', 60_000, 5);
    const { code, seconds: stopSeconds } = await terminate(first);
    t.equal(code, 0, 'exit code 0');
    t.ok(stopSeconds < shutdownTimeoutSeconds, `stopped in ${stopSeconds.toFixed(1)} s, within the deadline`);
    const said = first.logLines.map((l) => l.msg);
    t.ok(
      said.some((m) => m.startsWith('pier is stopping')) && said.includes('pier stopped'),
      'the stop is logged',
    );

    const accepted = await count('message');
    const delivered = await count("delivery where state = 'delivered'");
    t.ok(accepted < files, `stopped mid-run: ${accepted} accepted, ${delivered} delivered`);
    t.equal(
      await count("delivery where state = 'delivering'"),
      0,
      'no delivery is left claimed (none waits for a lease)',
    );
    t.equal(
      await count('message where id not in (select message_id from delivery)'),
      0,
      'every accepted message has its delivery',
    );

    // The instances are enabled, so the next process starts them itself; its port is open before.
    const port = await freePort();
    const readiness = readinessUntilReady(port);
    await start(port);
    t.same(await readiness, ['503 starting', '200 ready'], 'GET /ready: starting, then ready');
    await allDelivered(count, files, 180_000);
    t.equal(await count('message'), files, 'one message per file: none lost, none doubled');
    t.same(await readdir(inbox), [], 'every file was taken');
    const { written, wrong } = await readNumbered(path.join(outbox, 'acme'), files);
    t.equal(written, files, 'every file written once, under its own name');
    t.same(wrong, [], 'every file has its own content');
  },
);
