// Covers one AS2 receiver on one port in two `pier serve` processes on one machine, each listening on two threads (SO_REUSEPORT; needs Node 22.12 or later on Linux, and fails on older Node rather than pass): both processes start it, 12 partners' connections are spread over the four threads (every thread of both processes takes messages, both processes accept some), every receipted document is written once with its bytes and nothing is stored twice; a stop is followed by both processes and the port then refuses connections; the same receiver with listener_threads 1 keeps its port to one process, whose second start fails with EADDRINUSE as before.
import net from 'node:net';
import path from 'node:path';
import t from 'tap';
import { portSharingAvailable } from '../../actors/as2-receiver/listener-plan.js';
import { threadShares, threadSnapshot } from '../../benchmarks/lib/thread-cpu.js';
import { makeParties } from '../as2/parties.js';
import { as2ReceiversOnProcesses } from '../helpers/as2-on-processes.js';
import { as2Outcome, eachReceiptedAndWrittenOnce } from '../helpers/as2-outcome.js';
import { sendUntilReceipts } from '../helpers/as2-retrying-client.js';
import { query } from '../helpers/auto-failover.js';
import { createTestDatabase } from '../helpers/database.js';
import { tempDir } from '../helpers/flow.js';
import { freePort } from '../helpers/free-port.js';
import { loggedIn, mustOn, runningIn, spawnPier, statusIn } from '../helpers/process.js';
import { waitFor } from '../helpers/wait.js';

t.setTimeout(600_000);

if (!portSharingAvailable()) {
  t.fail(
    `sharing a receiver's port needs Node 22.12 or later on Linux; this is Node ${process.versions.node} ` +
      `on ${process.platform}: run this file with such a Node`,
  );
} else {
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const dir = await tempDir(t, 'pier-shared-port-');
  const outbox = path.join(dir, 'out');
  const written = path.join(outbox, 'alice');
  const parties = makeParties();
  t.teardown(() => parties.remove());
  const options = (n: number) => ({ databaseUrl: db.url, dataDir: path.join(dir, `data-${n}`), cwd: dir });
  const keys = {
    fixtures: parties.fixtures,
    certFile: parties.alice.certFile,
    keyFile: parties.alice.keyFile,
  };

  const {
    processes: [a],
    urls: [url],
    names: [name],
  } = await as2ReceiversOnProcesses(
    t,
    1,
    () => options(0),
    keys,
    'out',
    (p) => mustOn(p, '/plugins/configs?type=file-writer', { name: 'out', directory: outbox }).then(() => {}),
    { listener_threads: 2 },
  );
  const b = await spawnPier(t, options(1));
  const port = Number(new URL(url!).port);

  t.test('two processes, two threads each, one port: every thread takes messages, none lost', async (t) => {
    await runningIn(b, name!);
    await runningIn(b, 'out');
    // The receiver is ready once its first thread listens; the second says when it does too.
    for (const p of [a!, b])
      t.ok(
        await loggedIn(p, 'listening on 2 threads', { port }),
        'each process says it listens on two threads',
      );
    const before = [a!, b].map((p) => threadSnapshot(p.child.pid!));
    // A connection per message: the kernel spreads connections, not messages, over the four threads.
    const load = {
      urls: [url!],
      keys: parties.alice,
      concurrency: 12,
      documentBytes: 10 * 1024,
      run: 's',
      keepAlive: false,
    };
    const sent = await sendUntilReceipts({ ...load, receipts: 240, withinMs: 300_000, giveUpMs: 120_000 });
    const outcome = await as2Outcome(db.url, sent, written);
    eachReceiptedAndWrittenOnce(t, outcome);
    await waitFor(
      async () =>
        (
          await query<{ n: number }>(
            db.url,
            "select count(*)::int as n from delivery where state <> 'delivered'",
          )
        )[0]!.n === 0 || undefined,
      'every delivery recorded delivered',
      60_000,
      100,
    );
    const byNode = await query<{ node: number; n: number }>(
      db.url,
      'select accepted_by as node, count(*)::int as n from message group by 1 order by 1',
    );
    t.equal(byNode.length, 2, `both processes accepted messages: ${byNode.map((r) => r.n).join(' + ')}`);
    for (const [i, p] of [a!, b].entries()) {
      const shares = threadShares(before[i]!, threadSnapshot(p.child.pid!));
      for (const thread of ['as2-receiver', 'as2-receiver-2']) {
        const ms = shares.find((s) => s.thread === thread)?.cpu_ms ?? 0;
        // An idle listener spends nothing; one that takes messages spends milliseconds on each.
        t.ok(ms >= 100, `process ${i + 1}'s ${thread} took messages (${ms} ms of CPU)`);
      }
    }
  });

  t.test(
    'a second receiver of one process on the port is refused, though the kernel would share it',
    async (t) => {
      await mustOn(a!, '/plugins/configs?type=as2-receiver', {
        name: 'twin',
        host: '0.0.0.0',
        port,
        path: '/other',
        listener_threads: 2,
      });
      for (const p of [a!, b]) {
        const twin = await waitFor(
          async () =>
            (
              (await p.call('GET', '/services')).body.data as {
                name: string;
                status: string;
                error: string | null;
              }[]
            ).find((s) => s.name === 'twin' && s.status === 'error'),
          'twin refused',
          30_000,
          100,
        );
        t.equal(
          twin.error,
          `port ${port} is taken by as2-receiver ${name} of this process; give one of them another port`,
          'in each process, naming the receiver that holds the port',
        );
      }
    },
  );

  t.test('a stop is followed by both processes, and the port closes', async (t) => {
    await mustOn(a!, `/services/as2-receiver/${name}/stop`);
    for (const p of [a!, b]) await statusIn(p, name!, 'stopped');
    t.equal(await connects(port), false, 'no thread of either process listens any more');
  });

  t.test('listener_threads 1 keeps the port to one process', async (t) => {
    const alone = await freePort();
    // Created enabled: every process starts it, and only one can listen.
    await mustOn(a!, '/plugins/configs?type=as2-receiver', {
      name: 'alone',
      host: '127.0.0.1',
      port: alone,
      path: '/as2',
      listener_threads: 1,
    });
    const states = await waitFor(
      async () => {
        const views = await Promise.all(
          [a!, b].map(async (p) =>
            (
              (await p.call('GET', '/services')).body.data as {
                name: string;
                status: string;
                error: string | null;
              }[]
            ).find((s) => s.name === 'alone'),
          ),
        );
        return views.every((v) => v && (v.status === 'running' || v.status === 'error')) ? views : undefined;
      },
      'alone started or failed in both processes',
      30_000,
      100,
    );
    t.same(
      states.map((v) => v!.status).sort(),
      ['error', 'running'],
      'one process runs it, the other could not',
    );
    t.match(
      states.find((v) => v!.status === 'error')!.error,
      /EADDRINUSE/,
      'the other failed with EADDRINUSE',
    );
    t.equal(await connects(alone), true, 'the port is listened on');
  });
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}
