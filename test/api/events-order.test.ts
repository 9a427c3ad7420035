// Covers the event stream's order against concurrent writers: lines reach a client in id order, so that for every point where it could disconnect, the lines before it plus a resume after it (Last-Event-ID) are every committed line once, through real reconnects too, and what the stream waits for (an open history writer) and what it does not (another open transaction).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import t from 'tap';
import { seededRandom } from '../helpers/seeded.js';
import { startTestServer } from '../helpers/server.js';
import { openSse, type SseClient } from '../helpers/sse.js';

const server = await startTestServer(t, {
  listen: true,
  runtime: { events: { replay: 100_000, buffer: 100_000 } },
});
const feed = server.ctx.runtime!.history;
const auth = { authorization: `Bearer ${server.token}` };

async function connect(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: server.db.url });
  await client.connect();
  t.teardown(() => client.end());
  return client;
}
const db = await connect();
// Settled, so that the flow leaves it alone and the writers' lines are all its history gets.
const messageId = randomUUID();
await db.query(
  `insert into message (id, status, stage, direction, from_party, to_party, file_name, source_type, source_name,
                        accepted_by, created_at, updated_at)
   values ($1, 'Delivered', 'settled', 'outbound', 'acme', 'globex', 'x', 'file-poller', 'in', 1, now(), now())`,
  [messageId],
);

const clients: SseClient[] = [];
t.teardown(() => clients.forEach((c) => c.close()));
async function events(lastEventId?: number): Promise<SseClient> {
  const headers = lastEventId === undefined ? auth : { ...auth, 'last-event-id': String(lastEventId) };
  const client = await openSse(`${server.url}/api/v1/events`, headers);
  clients.push(client);
  return client;
}
const idsOf = (client: SseClient) => client.lines().map((l) => l.id);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function insertLine(client: pg.Client, text: string): Promise<number> {
  const r = await client.query(
    `insert into message_history (message_id, created_at, kind, text)
     values ($1, now(), 'duplicate_received', $2) returning id`,
    [messageId, text],
  );
  return Number((r.rows[0] as { id: string }).id);
}

/**
 * One writer: small transactions of one to three lines, a statement at a time so that the
 * writers' ids interleave; some wait between their ids and their commit, some roll back.
 * Answers the ids it committed.
 */
async function writer(client: pg.Client, seed: number, transactions: number): Promise<number[]> {
  const next = seededRandom(seed);
  const committed: number[] = [];
  for (let i = 0; i < transactions; i++) {
    await client.query('begin');
    const ids: number[] = [];
    const lines = 1 + Math.floor(next() * 3);
    for (let j = 0; j < lines; j++) ids.push(await insertLine(client, `w${seed}-${i}-${j}`));
    if (next() < 0.3) await sleep(Math.floor(next() * 40));
    if (next() < 0.15) {
      await client.query('rollback');
    } else {
      await client.query('commit');
      committed.push(...ids);
    }
    if (next() < 0.5) await sleep(Math.floor(next() * 4));
  }
  return committed;
}

async function committedAfter(afterId: number): Promise<number[]> {
  const r = await db.query('select id from message_history where id > $1 order by id', [afterId]);
  return r.rows.map((row: { id: string }) => Number(row.id));
}

function increasing(ids: readonly number[]): boolean {
  return ids.every((id, i) => i === 0 || id > ids[i - 1]!);
}

t.test('concurrent writers: every disconnect point resumes without a gap or a duplicate', async (t) => {
  const seed = 32_003;
  t.comment(`writers' seed ${seed}`);
  const baseline = Number(
    (await db.query('select coalesce(max(id), 0) as n from message_history')).rows[0].n,
  );
  const live = await events(baseline);
  await live.until(() => feed.subscriberCount >= 1, 'subscribed', 10_000);

  const writers = await Promise.all(Array.from({ length: 6 }, () => connect()));
  const writing = Promise.all(writers.map((client, i) => writer(client, seed + i, 70)));

  // A client that really disconnects, at moments of the writing, and resumes with the last id it got.
  const received: number[] = [];
  let resumes = 0;
  let done = false;
  void writing.finally(() => (done = true));
  let client = await events(baseline);
  const next = seededRandom(seed);
  while (!done) {
    await sleep(150 + Math.floor(next() * 300));
    client.close();
    received.push(...idsOf(client));
    client = await events(received.at(-1) ?? baseline);
    resumes++;
  }
  const committedByWriters = (await writing).flat().sort((a, b) => a - b);
  const committed = await committedAfter(baseline);
  t.same(committed, committedByWriters, 'the table holds what the writers committed');
  const last = committed.at(-1)!;
  await live.until(() => idsOf(live).includes(last), 'the last committed line (live)', 20_000);
  await client.until(
    () => received.includes(last) || idsOf(client).includes(last),
    'the last committed line (resumed)',
    20_000,
  );
  received.push(...idsOf(client));

  const stream = idsOf(live);
  t.ok(committed.length > 500, `${committed.length} lines committed, others rolled back`);
  t.ok(increasing(stream), 'the live stream sends ids in increasing order');
  t.same(stream, committed, 'the live stream sent every committed line once');

  // For every point of the stream where the client could have disconnected: what it had, and
  // what a resume after its last id replays (the stored lines after it, as GET /events reads them).
  const broken: string[] = [];
  for (let k = 0; k <= stream.length; k++) {
    const lastSeen = k === 0 ? baseline : stream[k - 1]!;
    const resumed = [...stream.slice(0, k), ...(await committedAfter(lastSeen))];
    if (JSON.stringify(resumed) !== JSON.stringify(committed)) {
      const lost = committed.filter((id) => !resumed.includes(id));
      broken.push(
        `after ${lastSeen}: ${lost.length} lost, ${resumed.length - committed.length + lost.length} twice`,
      );
    }
  }
  t.same(broken.slice(0, 10), [], `no disconnect point of ${stream.length + 1} loses or repeats a line`);

  t.ok(resumes >= 3, `${resumes} real reconnects with Last-Event-ID`);
  t.ok(increasing(received), 'across the reconnects, ids kept increasing');
  t.same(received, committed, 'across the reconnects, every committed line arrived once');
});

t.test('the stream waits for an open history writer, not for other open transactions', async (t) => {
  const live = await events();
  await live.until(() => feed.subscriberCount >= 1, 'subscribed', 10_000);
  const other = await connect();
  const holder = await connect();
  const quick = await connect();

  // A transaction that writes something else and stays open holds no history id.
  await other.query('begin');
  await other.query('select pg_current_xact_id()');
  const first = await insertLine(quick, 'quick 1');
  await live.until(() => idsOf(live).includes(first), 'a line beside an open unrelated transaction', 5_000);

  // A history writer that stays open holds the lines after its own back, until it commits.
  await holder.query('begin');
  const held = await insertLine(holder, 'held');
  const after = await insertLine(quick, 'quick 2');
  await sleep(300);
  t.notOk(idsOf(live).includes(after), 'a later line waits while a smaller id may still commit');
  await holder.query('commit');
  await live.until(() => idsOf(live).includes(after), 'the lines once the writer committed', 5_000);
  t.same(idsOf(live).slice(-2), [held, after], 'in id order');
  await other.query('rollback');
});
