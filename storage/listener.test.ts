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
  // so send until all three are heard.
  for (let i = 0; i < 100 && heard.length < 3; i++) {
    heard.length = 0;
    await sender.query(`select pg_notify('chan_a', 'x'), pg_notify('chan_b', 'y'), pg_notify('chan_c', 'z')`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  t.same(heard.sort(), ['chan_a:x', 'chan_b:y', 'chan_c:z']);
  await new Promise((resolve) => setImmediate(resolve));
  t.same(
    warnings.filter((w) => /already executing a query/.test(w)),
    [],
    'no query was queued on the busy connection',
  );
});
