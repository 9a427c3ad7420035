// Covers GET /ready: 200 when started with its database and payload store up; 503
// naming what is down, or `draining` once a stop began, while GET /health stays liveness; and
// every other request answered 503 NOT_READY with Retry-After while draining.
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);
const store = path.join(server.dataDir, 'payloads');

t.test('a payload store that cannot be used makes the process unready, not unhealthy', async (t) => {
  await rename(store, `${store}.away`);
  await writeFile(store, 'not a directory');
  const down = await server.call('GET', '/ready', { token: null });
  t.equal(down.status, 503);
  t.same(Object.keys(down.body).sort(), ['database', 'payload_store', 'status', 'timestamp']);
  t.match(down.body, { status: 'unready', database: 'up', payload_store: 'down' });
  const health = await server.call('GET', '/health', { token: null });
  t.match(
    { status: health.status, body: health.body },
    { status: 200, body: { status: 'healthy' } },
    '/health stays liveness',
  );
  await rm(store);
  await rename(`${store}.away`, store);
});

t.test('started, with its database and store: ready', async (t) => {
  // The store is probed at most every 5 s: the answer above is kept until then.
  await new Promise((resolve) => setTimeout(resolve, 5_100));
  const ready = await server.call('GET', '/ready', { token: null });
  t.equal(ready.status, 200);
  t.match(ready.body, { status: 'ready', database: 'up', payload_store: 'up' });
  t.equal((await server.call('GET', '/api/v1/organizations')).status, 200, 'and the API serves');
});

t.test('a database that does not answer makes it unready', async (t) => {
  const other = await startTestServer(t);
  await other.database.orm.close(true);
  const down = await other.call('GET', '/ready', { token: null });
  t.equal(down.status, 503);
  t.match(down.body, { status: 'unready', database: 'down' });
});

t.test('draining: /ready says so, other requests get 503 NOT_READY with Retry-After', async (t) => {
  server.ctx.readiness.drain();
  const draining = await server.call('GET', '/ready', { token: null });
  t.equal(draining.status, 503);
  t.match(draining.body, { status: 'draining', database: 'up', payload_store: 'up' });
  t.equal((await server.call('GET', '/health', { token: null })).status, 200, '/health still answers 200');
  t.equal((await server.call('GET', '/api/v1/health', { token: null })).status, 200, 'under the API too');
  const refused = await server.call('GET', '/api/v1/organizations');
  t.equal(refused.status, 503);
  t.same(refused.body, {
    data: null,
    error: { code: 'NOT_READY', message: 'pier is stopping; try again in a moment' },
  });
  t.equal(refused.headers['retry-after'], '10');
});
