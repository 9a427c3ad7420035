// Covers an AS2 sender on two threads (`threads` 2) over real HTTP to pier's own receiver: both threads claim, pack and send queued deliveries (each spends CPU on its share), every message is delivered once and received once with its bytes; a stop while sending drains both threads (nothing left held, the threads end) and a start sends the rest; threads above max_concurrent_deliveries are refused with the reason.
import t from 'tap';
import { threadNames, threadShares, threadSnapshot } from '../../benchmarks/lib/thread-cpu.js';
import { agreement, pierToItself, startSender, syncSigned } from '../helpers/as2.js';
import { sql } from '../helpers/database.js';
import { upload } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

t.setTimeout(300_000);

const server = await startTestServer(t);
const { cert, url } = await pierToItself(t, server);
await startSender(server, 'out', { threads: 2, max_concurrent_deliveries: 4 });
await agreement(server, 'x', url, cert, syncSigned);

const count = async (where: string) =>
  Number((await sql(server.db.url, `select count(*)::int as n from ${where}`))[0]!.n);
const senderThreads = () => threadNames(process.pid, 'as2-sender');
const content = (i: number) => `UNA:+.? '\nUNB+UNOC:3+SX+RX+${i}'\n`.repeat(20 + (i % 5));

async function send(prefix: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const made = await upload(
      server,
      { from: 'sx', to: 'rx', target: 'out' },
      { name: `${prefix}${i}.edi`, content: content(i) },
    );
    if (made.status !== 201) throw new Error(made.raw);
  }
}

/** File names of the messages received from SX that are missing, doubled, or hold other bytes. */
async function receivedWrong(prefix: string, n: number): Promise<string[]> {
  const wrong: string[] = [];
  const received = new Map<string, string[]>();
  for (const row of await sql<{ id: string; file_name: string }>(
    server.db.url,
    "select id, file_name from message where direction = 'inbound' and file_name like $1",
    [`${prefix}%`],
  ))
    received.set(row.file_name, [...(received.get(row.file_name) ?? []), row.id]);
  for (let i = 0; i < n; i++) {
    const name = `${prefix}${i}.edi`;
    const ids = received.get(name) ?? [];
    if (ids.length !== 1) {
      wrong.push(`${name} (${ids.length} received)`);
      continue;
    }
    const stored = await server.call('GET', `/api/v1/messages/${ids[0]}/payload?stage=unpacked`);
    if (stored.raw !== content(i)) wrong.push(`${name} (other bytes)`);
  }
  return wrong;
}

t.test('both threads pack and send; each message is delivered and received once', async (t) => {
  // A new thread has its parent's name until it names itself.
  const named = await waitFor(
    () => senderThreads().sort().join() === 'as2-sender,as2-sender-2' || undefined,
    'two named sender threads',
    60_000,
    50,
  );
  t.ok(named, 'the sender runs two named threads');
  const before = threadSnapshot(process.pid);
  await send('a', 40);
  await waitFor(
    async () => (await count("delivery where target = 'out' and state = 'delivered'")) === 40 || undefined,
    '40 deliveries delivered',
    180_000,
    100,
  );
  t.equal(await count("delivery where target = 'out' and attempts = 1"), 40, 'each at the first attempt');
  t.same(await receivedWrong('a', 40), [], 'each received once, with its bytes');
  const shares = threadShares(before, threadSnapshot(process.pid));
  for (const thread of ['as2-sender', 'as2-sender-2']) {
    const ms = shares.find((s) => s.thread === thread)?.cpu_ms ?? 0;
    // An idle thread spends nothing; one that packs and signs spends milliseconds on each message.
    t.ok(ms >= 20, `${thread} sent a part (${ms} ms of CPU)`);
  }
});

t.test('a stop drains both threads; a start sends the rest', async (t) => {
  await send('b', 40);
  await waitFor(
    async () => (await count("delivery where target = 'out' and state = 'delivered'")) >= 45 || undefined,
    'the second batch under way',
    180_000,
    20,
  );
  const stopped = await server.call('POST', '/api/v1/services/as2-sender/out/stop');
  t.equal(stopped.status, 200, stopped.raw);
  await waitFor(
    async () => {
      const list = (await server.call('GET', '/api/v1/services')).body.data as {
        name: string;
        status: string;
      }[];
      return list.some((s) => s.name === 'out' && s.status === 'stopped') || undefined;
    },
    'out stopped',
    30_000,
    50,
  );
  await waitFor(() => senderThreads().length === 0 || undefined, 'the threads ended', 10_000, 50);
  t.pass('both threads ended');
  t.equal(await count("delivery where target = 'out' and state = 'delivering'"), 0, 'nothing is left held');
  t.equal(await count("delivery where target = 'out' and attempts > 1"), 0, 'nothing was cut off mid-send');
  const started = await server.call('POST', '/api/v1/services/as2-sender/out/start');
  t.equal(started.status, 200, started.raw);
  await waitFor(
    async () => (await count("delivery where target = 'out' and state = 'delivered'")) === 80 || undefined,
    'all 80 delivered',
    180_000,
    100,
  );
  t.same(await receivedWrong('b', 40), [], 'each received once, with its bytes');
});

t.test('threads above max_concurrent_deliveries are refused with the reason', async (t) => {
  const r = await server.call('POST', '/api/v1/plugins/configs?type=as2-sender', {
    body: { name: 'many', threads: 3, max_concurrent_deliveries: 2 },
  });
  t.equal(r.status, 400, r.raw);
  t.match(r.body.error, {
    code: 'INVALID_INPUT',
    details: { threads: 'Must be at most max_concurrent_deliveries: each thread sends its share of them' },
  });
});
