// Covers finding the node of a multi-host DATABASE_URL on a real PostgreSQL behind a port that
// refuses: with target_session_attrs=any the first node that answers is taken, not the first
// named, and the ORM and a flow connection reach it; with no node answering the error says so.
import t from 'tap';
import { createTestDatabase } from '../test/helpers/database.js';
import { freePort } from '../test/helpers/free-port.js';
import { openDatabase } from './db.js';
import { connectToPrimary, PrimaryLocator } from './primary-locator.js';

const database = await createTestDatabase();
t.teardown(() => database.drop());
const real = new URL(database.url);
const server = `${real.hostname}:${real.port || 5432}`;
/** The test database's URL with these hosts instead of its own. */
const withHosts = (hosts: string[], query: string) =>
  `postgresql://${real.username}${real.password ? `:${real.password}` : ''}@${hosts.join(',')}${real.pathname}?${query}`;

t.test('target_session_attrs=any: a first node that refuses is passed over', async (t) => {
  const closed = `127.0.0.1:${await freePort()}`;
  const url = withHosts([closed, server], 'target_session_attrs=any');
  const found = await new PrimaryLocator(url).primary();
  t.equal(`${found.host}:${found.port}`, server, 'the second node, the first that answers');

  const orm = await openDatabase(url, { create: false });
  t.teardown(() => orm.close());
  t.same(
    await orm.em.getConnection().execute('select current_database() as name'),
    [{ name: database.name }],
    'the ORM connects through it',
  );
  const { client, connect } = await connectToPrimary(url);
  await connect();
  t.teardown(() => client.end());
  t.equal((await client.query<{ one: number }>('select 1 as one')).rows[0]?.one, 1, 'a flow connection too');
});

t.test('target_session_attrs=any with no node answering says that none answers', async (t) => {
  const url = withHosts(
    [`127.0.0.1:${await freePort()}`, `127.0.0.1:${await freePort()}`],
    'target_session_attrs=any',
  );
  await t.rejects(new PrimaryLocator(url).primary(), {
    code: '08001',
    message: /^No node of DATABASE_URL answers now: .*ECONNREFUSED/,
  });
});

t.test('target_session_attrs=read-write passes over a refusing node the same way', async (t) => {
  const url = withHosts([`127.0.0.1:${await freePort()}`, server], 'target_session_attrs=read-write');
  const found = await new PrimaryLocator(url).primary();
  t.equal(`${found.host}:${found.port}`, server);
});
