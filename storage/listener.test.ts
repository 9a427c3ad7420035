// Covers the database listener on a real PostgreSQL: channels registered after it started, several
// in one turn, each hear what another connection NOTIFYs, and registering them queues no query on
// the busy connection (pg deprecates that, and pg 9 refuses it); a channel is heard while it has a
// handler and again once it has a new one.
import pg from 'pg';
import pino from 'pino';
import t from 'tap';
import { createTestDatabase } from '../test/helpers/database.js';
import { waitFor } from '../test/helpers/wait.js';
import { DatabaseListener } from './listener.js';

t.test('channels registered in one turn after start each hear their notices', async (t) => {
  const database = await createTestDatabase();
  t.teardown(() => database.drop());
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.message);
  process.on('warning', onWarning);
  t.teardown(() => process.off('warning', onWarning));

  const listener = new DatabaseListener(database.url, pino({ level: 'silent' }));
  await listener.start();
  t.teardown(() => listener.close());
  const heard: string[] = [];
  for (const channel of ['chan_a', 'chan_b', 'chan_c'])
    listener.on(channel, (payload) => heard.push(`${channel}:${payload}`));

  const sender = new pg.Client({ connectionString: database.url });
  await sender.connect();
  t.teardown(() => sender.end());
  // The LISTENs go out one after another; notices sent before they are in effect are lost,
  // so send rounds until one round is heard on all three channels. Each round has its own
  // payload: a late notice from an earlier round must not count for (or spoil) a later one.
  const heardIn = (round: number) => heard.filter((entry) => entry.split(':')[1] === String(round)).sort();
  let round = 0;
  let complete: number | undefined;
  while (complete === undefined && round < 100) {
    round++;
    await sender.query(`select pg_notify('chan_a', $1), pg_notify('chan_b', $1), pg_notify('chan_c', $1)`, [
      String(round),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (let r = 1; r <= round && complete === undefined; r++) if (heardIn(r).length >= 3) complete = r;
  }
  t.ok(complete !== undefined, `one round was heard on all three channels (${round} sent)`);
  t.same(heardIn(complete ?? round), [`chan_a:${complete}`, `chan_b:${complete}`, `chan_c:${complete}`]);
  await new Promise((resolve) => setImmediate(resolve));
  t.same(
    warnings.filter((w) => /already executing a query/.test(w)),
    [],
    'no query was queued on the busy connection',
  );
});

t.test(
  'a channel is heard while it has a handler, not after its last one stops, and again with a new one',
  async (t) => {
    const database = await createTestDatabase();
    t.teardown(() => database.drop());
    const listener = new DatabaseListener(database.url, pino({ level: 'silent' }));
    await listener.start();
    t.teardown(() => listener.close());
    const sender = new pg.Client({ connectionString: database.url });
    await sender.connect();
    t.teardown(() => sender.end());
    const heard: string[] = [];
    // Notices arrive in commit order: once chan_b's is heard, chan_a's of the same round is in.
    listener.on('chan_b', (payload) => heard.push(`b:${payload}`));
    const sendAndMark = async (payload: string) => {
      await sender.query(`select pg_notify('chan_a', $1)`, [payload]);
      await sender.query(`select pg_notify('chan_b', $1)`, [payload]);
      await waitFor(() => heard.includes(`b:${payload}`), `round ${payload} on chan_b`);
    };

    const first = listener.on('chan_a', (payload) => heard.push(`a1:${payload}`));
    const second = listener.on('chan_a', (payload) => heard.push(`a2:${payload}`));
    await listener.settled();
    await sendAndMark('1');
    first();
    await listener.settled();
    await sendAndMark('2');
    second();
    second(); // a second call changes nothing
    await listener.settled();
    await sendAndMark('3');
    listener.on('chan_a', (payload) => heard.push(`a3:${payload}`));
    await listener.settled();
    await sendAndMark('4');
    t.same(
      heard,
      ['a1:1', 'a2:1', 'b:1', 'a2:2', 'b:2', 'b:3', 'a3:4', 'b:4'],
      'each handler hears while it is on; the channel again once it has one',
    );
  },
);
