// Covers the database listener on a real PostgreSQL: channels registered after it started, several
// in one turn, each hear what another connection NOTIFYs, and registering them queues no query on
// the busy connection (pg deprecates that, and pg 9 refuses it).
import pg from 'pg';
import pino from 'pino';
import t from 'tap';
import { createTestDatabase } from '../test/helpers/database.js';
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
