// Covers GET /api/v1/events over real HTTP: live lines of a message sent by hand, many lines fanned out in batches (framed and encoded once, the same bytes for every client) to 50 clients that each get every line once and in order, the message_id filter, Last-Event-ID replay with no gap or duplicate while lines keep arriving, reload for a too-old id and for a client that stops reading, keep-alive comments, the headers, and that a closed client frees its subscription.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import t from 'tap';
import { fileFlow, runningOn, parties, tempDir, upload, waitForMessage } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { openSse, type SseClient } from '../helpers/sse.js';
import { waitFor } from '../helpers/wait.js';
import type { FeedBatch } from '../../runtime/events/history-feed.js';

const limits = { replay: 20, buffer: 50, keepAliveMs: 300 };
const server = await startTestServer(t, { listen: true, runtime: { events: limits } });
const dir = await tempDir(t);
await parties(server);
await fileFlow(server, dir);
await runningOn(server, 'file-writer', 'out');
const feed = server.ctx.runtime!.history;
const auth = { authorization: `Bearer ${server.token}` };
const events = (query = '', headers: Record<string, string> = {}) =>
  openSse(`${server.url}/api/v1/events${query}`, { ...auth, ...headers });

const db = new pg.Client({ connectionString: server.db.url });
await db.connect();
t.teardown(() => db.end());

async function sendByHand(name: string): Promise<string> {
  const made = await upload(server, { from: 'acme', to: 'globex' }, { name, content: `${name}\n` });
  if (made.status !== 201) throw new Error(made.raw);
  return made.body.data.id as string;
}

/** Lines of one message, as GET /messages/{id} lists them, once it is delivered. */
async function historyOf(id: string) {
  const message = await waitForMessage(server, id, (m) => m.status === 'Delivered', 'delivered');
  return message.history as { id: number; kind: string }[];
}

/** Inserts history lines for a message by SQL, as any writer would; returns their ids. */
async function insertLines(messageId: string, count: number, text = 'x'): Promise<number[]> {
  const r = await db.query(
    `insert into message_history (message_id, created_at, kind, text)
     select $1, now(), 'duplicate_received', $2 || n from generate_series(1, $3) as n returning id`,
    [messageId, text, count],
  );
  return r.rows.map((row: { id: string }) => Number(row.id));
}

const closeAll: SseClient[] = [];
t.teardown(() => closeAll.forEach((c) => c.close()));
async function keep(client: Promise<SseClient>): Promise<SseClient> {
  const c = await client;
  closeAll.push(c);
  return c;
}

t.test('live lines of a message sent by hand, with the headers that stop proxy buffering', async (t) => {
  const client = await keep(events());
  t.equal(client.status, 200);
  t.match(client.headers['content-type'], /^text\/event-stream/);
  t.match(client.headers['cache-control'], /no-cache/);
  t.equal(client.headers['x-accel-buffering'], 'no');
  await client.until(() => feed.subscriberCount >= 1, 'subscribed');
  await client.until(() => client.events.some((e) => e.retry === '3000'), 'the retry delay');

  const id = await sendByHand('live.txt');
  const history = await historyOf(id);
  const received = await client.until(() => {
    const mine = client.lines().filter((l) => l.message_id === id);
    return mine.length >= history.length && mine;
  }, 'every line of the message');
  t.same(
    received.map((l) => l.id),
    history.map((h) => h.id),
    'the same lines as the message shows, in order, each once',
  );
  const first = received[0]!;
  t.match(first, { message_id: id, kind: 'status_changed', new_status: 'Received' });
  t.match(first.created_at, /^\d{4}-\d\d-\d\dT/);
  const delivery = received.find((l) => l.kind === 'delivery_changed');
  t.match(delivery, { target: 'out', delivery_id: Number });
  const frames = client.events.filter((e) => e.event === 'message_history');
  t.ok(
    frames.every((e) => e.id === String(JSON.parse(e.data!).id)),
    'each event id is the line id',
  );
  client.close();
});

t.test(
  'many lines to many clients: in batches, the same bytes for all, each line once and in order',
  async (t) => {
    const message = await sendByHand('fan-out.txt');
    await historyOf(message);
    const clients = await Promise.all(Array.from({ length: 50 }, () => keep(events())));
    const seen: FeedBatch[][] = [[], []];
    const unsubscribe = seen.map((batches) => feed.subscribe((b) => batches.push(b)).unsubscribe);
    t.teardown(() => unsubscribe.forEach((u) => u()));
    await clients[0]!.until(() => feed.subscriberCount >= 52, 'every client subscribed');

    const ids: number[] = [];
    for (let i = 0; i < 4; i++) ids.push(...(await insertLines(message, 250, `fan${i}-`)));
    const mine = (c: SseClient) => c.lines().filter((l) => l.message_id === message);
    for (const client of clients) {
      await client.until(() => mine(client).length >= ids.length, 'all 1,000 lines');
    }
    t.ok(
      clients.every((c) => JSON.stringify(mine(c).map((l) => l.id)) === JSON.stringify(ids)),
      'every client got every line once, in order',
    );
    const batches = seen[0]!.filter((b) => b.lines.some((l) => l.message_id === message));
    t.ok(batches.length <= 4, `1,000 lines in ${batches.length} hand-outs, not one per line`);
    t.ok(
      seen[0]!.every((b, i) => b === seen[1]![i]),
      'each batch is handed to every subscriber as the same object',
    );
    const first = batches[0]!;
    t.equal(
      first.bytes.toString(),
      first.lines.map((l) => `id: ${l.id}\nevent: message_history\ndata: ${l.data}\n\n`).join(''),
      'its bytes are the frames of its lines, encoded once',
    );
    clients.forEach((c) => c.close());
    await clients[0]!.until(() => feed.subscriberCount === 2, 'the clients let go');
  },
);

t.test('the message_id filter and bad parameters', async (t) => {
  const first = await sendByHand('a.txt');
  await historyOf(first);
  const client = await keep(events(`?message_id=${first}`));
  await client.until(() => feed.subscriberCount >= 1, 'subscribed');
  const second = await sendByHand('b.txt');
  await historyOf(second);
  await insertLines(first, 3, 'only-mine-');
  await client.until(() => client.lines().length >= 3, 'the lines of the filtered message');
  t.same(
    client.lines().map((l) => l.text),
    ['only-mine-1', 'only-mine-2', 'only-mine-3'],
    'only the lines of that message',
  );

  const unknown = await events('?messages=1');
  t.equal(unknown.status, 400);
  await unknown.ended;
  t.match(JSON.parse(unknown.body()), { error: { code: 'INVALID_INPUT', details: { messages: String } } });
  const badId = await events('?message_id=nope');
  t.equal(badId.status, 400);
  const badLast = await events('', { 'last-event-id': 'yesterday' });
  t.equal(badLast.status, 400);
  await badLast.ended;
  t.match(JSON.parse(badLast.body()), { error: { details: { 'Last-Event-ID': String } } });
  const anonymous = await openSse(`${server.url}/api/v1/events`);
  t.equal(anonymous.status, 401, 'authenticated like every API path');
  client.close();
});

t.test('Last-Event-ID: the stored lines after it, then live, no gap and no duplicate', async (t) => {
  const message = await sendByHand('replay.txt');
  await historyOf(message);
  const watcher = await keep(events(`?message_id=${message}`));
  await watcher.until(() => feed.subscriberCount >= 1, 'subscribed');
  // A writer that keeps adding lines, one small transaction every few milliseconds, while the
  // second client connects. Until that client's replay has been read it stops short of the
  // replay bound, so that a slow machine cannot turn the resume into a (correct) reload.
  const written: number[] = [];
  let cap = 0;
  let writing = true;
  const writer = (async () => {
    for (let i = 0; writing; i++) {
      if (written.length < cap) written.push(...(await insertLines(message, 1, `w${i}-`)));
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
  })();
  try {
    cap = 8;
    await watcher.until(() => written.length >= 8 && watcher.lines().length >= 8, 'some lines');
    const seen = written[3]!;
    cap = 4 + limits.replay - 2;
    const resumed = await keep(events(`?message_id=${message}`, { 'last-event-id': String(seen) }));
    t.equal(resumed.status, 200);
    cap = Infinity;
    await resumed.until(
      () => resumed.isEnded() || resumed.lines().length >= limits.replay + 10,
      'replay and live lines',
    );
    t.same(
      resumed.events.filter((e) => e.event === 'reload'),
      [],
      'no reload: fewer lines than the bound were missed',
    );
    writing = false;
    await writer;
    const last = written.at(-1)!;
    await watcher.until(() => watcher.lines().some((l) => l.id === last), 'the last line (watcher)');
    await resumed.until(() => resumed.lines().some((l) => l.id === last), 'the last line (resumed)');
    t.same(
      resumed.lines().map((l) => l.id),
      written.filter((id) => id > seen),
      'every line after the id, once each, in order',
    );
    t.same(
      watcher
        .lines()
        .map((l) => l.id)
        .filter((id) => id >= written[0]!),
      written,
      'the watcher, live all along, got every line once',
    );
    resumed.close();
  } finally {
    writing = false;
    await writer;
    watcher.close();
  }
});

t.test('a Last-Event-ID older than the replay bound gets reload and the end', async (t) => {
  const message = await sendByHand('old.txt');
  await historyOf(message);
  const ids = await insertLines(message, limits.replay + 5);
  const client = await keep(events('', { 'last-event-id': String(ids[0]! - 1) }));
  await client.ended;
  t.same(
    client.events.filter((e) => e.event),
    [{ event: 'reload', data: JSON.stringify({ reason: `more than ${limits.replay} lines were missed` }) }],
    'one reload, no lines',
  );
  // Filtered to the message, so lines other work writes meanwhile do not count.
  const within = await keep(
    events(`?message_id=${message}`, { 'last-event-id': String(ids.at(-limits.replay)! - 1) }),
  );
  await within.until(() => within.lines().length >= limits.replay, 'the replay');
  t.same(
    within
      .lines()
      .slice(0, limits.replay)
      .map((l) => l.id),
    ids.slice(-limits.replay),
    'exactly the bound is still replayed',
  );
  within.close();
});

t.test('a client that stops reading gets reload and the end', async (t) => {
  const message = await sendByHand('slow.txt');
  await historyOf(message);
  const before = feed.subscriberCount;
  const client = await keep(events());
  await client.until(() => feed.subscriberCount > before, 'subscribed');
  client.response.pause();
  // Big lines fill the socket buffers; then the stream's own buffer overflows. How much the
  // kernel's buffers take varies from run to run (loopback TCP grows them), so lines go in until
  // the client is let go, up to ten times what usually does it.
  let inserted = 0;
  for (let i = 0; i < 120 && feed.subscriberCount > before; i++) {
    await insertLines(message, 200, 'y'.repeat(4000));
    inserted += 200;
  }
  await client.until(() => feed.subscriberCount === before, 'the slow client let go');
  client.response.resume();
  await client.ended;
  const last = client.events.filter((e) => e.event).at(-1);
  t.same(last, { event: 'reload', data: JSON.stringify({ reason: 'the client reads too slowly' }) });
  t.ok(client.lines().length < inserted, 'lines were dropped instead of buffered');
});

t.test('keep-alive comments while nothing happens', async (t) => {
  // A message with no lines: the earlier tests' lines, still being fanned out, cannot reach it.
  const client = await keep(events(`?message_id=${randomUUID()}`));
  await client.until(
    () => client.events.filter((e) => e.comment === ' keep-alive').length >= 2,
    'two keep-alive comments',
  );
  t.pass('comments arrive at the injected interval');
  client.close();
});

t.test('closed clients free their subscriptions', async (t) => {
  const clients = await Promise.all([1, 2, 3].map(() => keep(events(`?message_id=${randomUUID()}`))));
  await clients[0]!.until(() => feed.subscriberCount >= 3, 'three subscribers');
  clients.forEach((c) => c.close());
  await clients[0]!.until(() => feed.subscriberCount === 0, 'no subscriber left');
  t.equal(feed.subscriberCount, 0);
});

t.test('a statement that writes history lines wakes the feeds; one that writes none does not', async (t) => {
  const message = await sendByHand('announced.txt');
  await historyOf(message);
  const listening = new pg.Client({ connectionString: server.db.url });
  await listening.connect();
  t.teardown(() => listening.end());
  const heard: string[] = [];
  listening.on('notification', (n) => {
    if (n.channel === 'pier_history') heard.push(n.payload ?? '');
  });
  await listening.query('listen pier_history');
  await insertLines(message, 3);
  await db.query(
    `insert into message_history (message_id, created_at, kind, text)
     select $1, now(), 'duplicate_received', 'none' where false`,
    [message],
  );
  await insertLines(message, 1);
  // Notifications arrive in commit order: once this last one is here, every earlier one is too.
  await db.query(`notify pier_history, 'end of test'`);
  await waitFor(() => heard.includes('end of test'), 'the marker notification');
  t.equal(heard.at(-1), 'end of test', 'the marker arrived');
  t.equal(heard.length - 1, 2, 'one announcement for each statement that wrote lines');
});
