// Covers the stall schedule with an injectable clock (announced again after 10, 40, 160, 600, 600 s; stalled with delivery_stalled after 23.5 min), the retry limit with its waits, and a handed delivery this process lost taken back a minute after its acceptance, without real waiting.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import t from 'tap';
import { offeredFile, sql } from '../helpers/database.js';
import { must, parties, tempDir, upload, waitForMessage } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { readWorkNotice } from '../../flow/tx.js';
import { SharedClock } from '../../protocol/clock.js';

const clock = SharedClock.stoppedAt(Date.parse('2026-06-01T08:00:00.000Z'));
const server = await startTestServer(t, { clock, runtime: { timers: false } });
const dir = await tempDir(t);
await parties(server);
const dispatcher = server.ctx.runtime!.dispatcher;
/**
 * Moves the clock to `seconds` after `from` and runs the dispatcher's timed work once;
 * `recovery`: with the search for lost claims.
 */
async function at(from: number, seconds: number, recovery = false) {
  clock.set(from + seconds * 1000);
  await dispatcher.tick(recovery);
}

// Announcements travel by NOTIFY; the test listens like another pier process would.
const announcements: string[] = [];
const listener = new pg.Client({ connectionString: server.db.url });
await listener.connect();
listener.on('notification', (n) => announcements.push(readWorkNotice(n.payload ?? '').target));
await listener.query('listen pier_work');
t.teardown(() => listener.end());
const settle = () => new Promise((r) => setTimeout(r, 100));
/** A file writer whose instance is never started (created disabled): nothing claims its deliveries. */
const disabledWriter = (name: string) =>
  must(server, '/plugins/configs?type=file-writer', {
    name,
    directory: path.join(dir, name),
    enabled: false,
  });

t.test('a queued delivery nobody claims is announced again, then stalled', async (t) => {
  await disabledWriter('nobody-runs-me');
  const start = clock.now().getTime();
  const made = await upload(
    server,
    { from: 'acme', to: 'globex', target: 'nobody-runs-me' },
    { name: 's.txt', content: 's' },
  );
  const deliveryId = made.body.data.deliveries[0].id;
  await settle();
  t.same(announcements, ['nobody-runs-me'], 'announced once when dispatched');
  const dispatches = async () =>
    (await sql(server.db.url, 'select dispatches, state from delivery where id = $1', [deliveryId]))[0];

  const schedule: [number, number][] = [
    [9.999, 1],
    [10, 2],
    [49, 2],
    [50, 3],
    [209, 3],
    [210, 4],
    [809, 4],
    [810, 5],
    [1409, 5],
  ];
  for (const [seconds, expected] of schedule) {
    await at(start, seconds);
    t.match(
      await dispatches(),
      { dispatches: expected, state: 'queued' },
      `after ${seconds} s: ${expected} announcements`,
    );
  }
  await settle();
  t.equal(announcements.length, 5, 'each announcement reached the other processes');
  t.equal(
    (await sql(server.db.url, "select count(*)::int as n from alert where code = 'delivery_stalled'"))[0]!.n,
    0,
  );

  await at(start, 1410);
  t.match(await dispatches(), { state: 'stalled' }, 'stalled after 23.5 minutes');
  const alerts = await sql(
    server.db.url,
    "select code, severity, instance, details from alert where code = 'delivery_stalled'",
  );
  t.match(alerts, [
    {
      code: 'delivery_stalled',
      severity: 'warning',
      instance: 'nobody-runs-me',
      details: { delivery_id: deliveryId },
    },
  ]);
  const m = (await server.call('GET', `/api/v1/messages/${made.body.data.id}`)).body.data;
  t.match(m, { status: 'Stalled', stage: 'settled' });
  t.match(m.deliveries[0], {
    state: 'stalled',
    last_error: 'No nobody-runs-me instance claimed it after 5 announcements',
  });
  t.match(m.history.at(-2), { kind: 'delivery_changed', old_state: 'queued', new_state: 'stalled' });
  t.match(m.history.at(-1), { kind: 'status_changed', old_status: 'InProgress', new_status: 'Stalled' });
  t.equal(Date.parse(m.deliveries[0].finished_at), start + 1410_000, 'times come from the clock');
  await at(start, 5000);
  t.equal(
    (await sql(server.db.url, "select count(*)::int as n from alert where code = 'delivery_stalled'"))[0]!.n,
    1,
    'raised once',
  );
  t.equal(
    (await server.call('GET', '/api/v1/stats')).body.data.failed_last_24h,
    1,
    'Stalled counts as failed',
  );
});

t.test('retries wait by the clock and stop at the attempt limit', async (t) => {
  let requests = 0;
  const partner = createServer((_q, r) => {
    requests++;
    r.statusCode = 502;
    r.end();
  });
  await new Promise<void>((resolve) => partner.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => partner.close(() => resolve())));
  await must(server, '/plugins/configs?type=http-poster', {
    name: 'flaky',
    url: `http://127.0.0.1:${(partner.address() as AddressInfo).port}/`,
    max_attempts: 3,
    retry_interval: 60,
    retry_backoff: 2,
  });
  const start = clock.now().getTime();
  const made = await upload(
    server,
    { from: 'acme', to: 'globex', target: 'flaky' },
    { name: 'r.txt', content: 'r' },
  );
  const id = made.body.data.id;
  let m = await waitForMessage(server, id, (x) => x.deliveries[0].state === 'retrying', 'first failure');
  t.equal(Date.parse(m.deliveries[0].next_attempt_at), start + 60_000, 'second attempt after retry_interval');
  await at(start, 59);
  t.equal(requests, 1, 'not before its time');
  await at(start, 60);
  m = await waitForMessage(
    server,
    id,
    (x) => x.deliveries[0].attempts === 2 && x.deliveries[0].state === 'retrying',
    'second failure',
  );
  t.equal(
    Date.parse(m.deliveries[0].next_attempt_at),
    start + 60_000 + 120_000,
    'the wait grows by retry_backoff',
  );
  await at(start, 180);
  m = await waitForMessage(server, id, (x) => x.status === 'Error', 'failed at the limit');
  t.match(m.deliveries[0], { state: 'failed', attempts: 3, next_attempt_at: null });
  t.match(m.history.at(-2).text, /no attempts left \(3\)/);
  t.equal(requests, 3);
});

t.test('a handed delivery this process lost is taken back a minute after its acceptance', async (t) => {
  // Nothing of this process names the file handed to it.
  await disabledWriter('lost-hand');
  const start = clock.now().getTime();
  const item = offeredFile('handed.edi', 'unpacked');
  item.target_hint = 'lost-hand';
  item.message.handed = [{ target: 'lost-hand', detail: 'Writing handed.edi' }];
  const accepted = await dispatcher.acceptAndDispatch(item);
  t.same(
    accepted.handed?.map((h) => h.target),
    ['lost-hand'],
    'stored as held by the writer it was handed to',
  );
  const message = async () => (await server.call('GET', `/api/v1/messages/${item.message.id}`)).body.data;
  await at(start, 59, true);
  t.match((await message()).deliveries[0], { state: 'delivering' }, 'held for its first minute');
  announcements.length = 0;
  await at(start, 60, true);
  const m = await message();
  t.match(m, { status: 'InProgress' });
  t.match(m.deliveries[0], {
    state: 'queued',
    last_error: 'its file handed to the target was not named within 60 s of the acceptance',
  });
  t.match(m.history.at(-1), {
    kind: 'delivery_changed',
    old_state: 'delivering',
    new_state: 'queued',
    text: 'Taken back: its file handed to the target was not named within 60 s of the acceptance',
  });
  await settle();
  t.same(announcements, ['lost-hand'], 'its target announced to every process');
});
