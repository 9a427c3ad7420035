// Covers the drain's deadline and the second signal: deliveries that outlast
// PIER_SHUTDOWN_TIMEOUT are cut at it and given back at once (none left claimed), so the exit
// comes at the deadline with code 0; a second signal ends the process at once (143); either
// way the next process delivers every file.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import t, { type Test } from 'tap';
import { startPeer } from '../helpers/http-peer.js';
import { exitOf, flowOn, killablePier, mustOn, terminate } from '../helpers/process.js';
import { allDelivered } from '../helpers/row-counts.js';
import { waitFor } from '../helpers/wait.js';

const files = 20;
const shutdownTimeoutSeconds = 3;

/** A partner endpoint that holds every request until `release()` (then answers at once). */
async function slowPeer(t: Test) {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const peer = await startPeer(t, async () => {
    await released;
    return { status: 200, body: 'ok' };
  });
  t.teardown(() => release());
  return { peer, release };
}

async function flow(t: Test, name: string) {
  const shutdown = { PIER_SHUTDOWN_TIMEOUT: String(shutdownTimeoutSeconds) };
  const { dir, inbox, start, count } = await killablePier(t, `pier-drain-${name}-`, shutdown);
  const { peer, release } = await slowPeer(t);
  const first = await start();
  await mustOn(first, '/plugins/configs?type=http-poster', {
    name: 'post',
    url: peer.url,
    max_concurrent_deliveries: 5,
    timeout_seconds: 600,
  });
  await flowOn(first, dir, { target: 'post', poller: { polling_interval: 1 } });
  for (let i = 0; i < files; i++) await writeFile(path.join(inbox, `f${i}.dat`), `file ${i}`);
  // Five deliveries under way at the partner, which does not answer.
  await waitFor(() => peer.requests.length >= 5, 'five deliveries under way', 60_000, 20);
  return { first, start, count, peer, release };
}

t.test('deliveries that outlast the deadline are cut at it and given back at once', async (t) => {
  const { first, start, count, release } = await flow(t, 'deadline');
  const { code, seconds } = await terminate(first);
  t.equal(code, 0, 'exit code 0');
  t.ok(
    seconds >= shutdownTimeoutSeconds - 0.5 && seconds < shutdownTimeoutSeconds + 5,
    `it waited for the deliveries up to the deadline, then stopped (${seconds.toFixed(1)} s)`,
  );
  t.ok(
    first.logLines.some((l) => l.msg === 'plugin instance did not stop in time; its thread was ended'),
    'the log says which instance was cut',
  );
  t.equal(await count("delivery where state = 'delivering'"), 0, 'nothing is left claimed');

  release();
  await start();
  await allDelivered(count, files, 60_000);
  t.equal(await count('message'), files, 'one message per file');
});

t.test('a second signal stops the process at once; the next process delivers everything', async (t) => {
  const { first, start, count, release } = await flow(t, 'second-signal');
  const exited = exitOf(first);
  first.child.kill('SIGTERM');
  // Past the moment in which a second signal is the same one delivered twice.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const secondAt = Date.now();
  first.child.kill('SIGTERM');
  const { code, at } = await exited;
  t.equal(code, 143, 'exit code 143 (128 + SIGTERM)');
  t.ok(at - secondAt < 1_000, `it stopped at once (${at - secondAt} ms)`);
  t.ok(
    first.logLines.some(
      (l) => l.msg === 'pier is stopping at once (a second signal): work in hand is abandoned',
    ),
    'the log says so',
  );

  release();
  await start();
  await allDelivered(count, files, 60_000);
  t.equal(await count('message'), files, 'one message per file: nothing acknowledged was lost');
});
