// Covers routes (docs/api/routes.md): CRUD, default names, instance roles and parties, the "already covered" rule, 409 on names, configs in use.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);
const post = (url: string, body: unknown) => server.call('POST', `/api/v1${url}`, { body });

await post('/organizations', { name: 'acme' });
await post('/partners', { name: 'globex' });
await post('/partners', { name: 'initech' });
await post('/plugins/configs?type=file-poller', {
  name: 'inbox',
  base_directory: '/srv/in',
  processed_directory: '/srv/done',
  from: 'acme',
});
await post('/plugins/configs?type=file-writer', { name: 'outbox', directory: '/srv/out' });
await post('/plugins/configs?type=http-poster', { name: 'erp', url: 'http://127.0.0.1:9/erp' });

t.test('create, read, list, update, delete', async (t) => {
  const made = await post('/routes', {
    source_plugin: 'inbox',
    from: 'acme',
    to: 'globex',
    target_plugin: 'outbox',
  });
  t.equal(made.status, 201);
  t.match(made.body.data, {
    name: 'inbox-acme-globex-outbox',
    source_plugin: 'inbox',
    from: 'acme',
    to: 'globex',
    target_plugin: 'outbox',
  });
  const id = made.body.data.id as number;
  t.same((await server.call('GET', `/api/v1/routes/${id}`)).body.data, made.body.data);

  const list = await server.call('GET', '/api/v1/routes');
  t.equal(list.body.data.total, 1);
  t.same(list.body.data.routes[0], made.body.data);

  const moved = await server.call('PUT', `/api/v1/routes/${id}`, {
    body: { to: 'initech', name: 'to-initech' },
  });
  t.equal(moved.status, 200);
  t.match(moved.body.data, { to: 'initech', name: 'to-initech', from: 'acme' });
  const roundTrip = await server.call('PUT', `/api/v1/routes/${id}`, { body: moved.body.data });
  t.equal(roundTrip.status, 200);
  const otherId = await server.call('PUT', `/api/v1/routes/${id}`, { body: { id: id + 1 } });
  t.same(otherId.body.error.details, { id: `Names route ${id + 1}, but the path names ${id}` });

  t.equal((await server.call('DELETE', `/api/v1/routes/${id}`)).status, 204);
  const gone = await server.call('GET', `/api/v1/routes/${id}`);
  t.same(gone.body, { data: null, error: { code: 'NOT_FOUND', message: 'Route not found' } });
});

t.test('instances must exist with the right role; parties must exist', async (t) => {
  const bad = await post('/routes', {
    source_plugin: 'outbox',
    from: 'nobody',
    to: '*',
    target_plugin: 'ghost',
  });
  t.equal(bad.status, 400);
  t.same(bad.body.error.details, {
    source_plugin: 'outbox is a file-writer, not a source (file-poller or as2-receiver)',
    target_plugin: 'No plugin instance is named ghost',
    from: 'No organization or partner is named nobody',
  });
  const shape = await post('/routes', {
    source_plugin: 'inbox',
    from: 'ACME',
    to: '',
    target_plugin: 'outbox',
  });
  t.same(shape.body.error.details, {
    from: 'Must be a party name or * for any',
    to: 'Must be a party name or * for any',
  });
});

t.test('a route an existing one covers is refused on to; a duplicate name is 409', async (t) => {
  const wide = await post('/routes', {
    name: 'wide',
    source_plugin: 'inbox',
    from: 'acme',
    to: '*',
    target_plugin: 'erp',
  });
  t.equal(wide.status, 201);
  const covered = await post('/routes', {
    source_plugin: 'inbox',
    from: 'acme',
    to: 'globex',
    target_plugin: 'erp',
  });
  t.equal(covered.status, 400);
  t.same(covered.body.error, {
    code: 'INVALID_INPUT',
    message: 'Validation failed',
    details: { to: 'Route wide already covers this route' },
  });
  const otherTarget = await post('/routes', {
    name: 'narrow',
    source_plugin: 'inbox',
    from: 'acme',
    to: 'globex',
    target_plugin: 'outbox',
  });
  t.equal(otherTarget.status, 201, 'the same parties to another target are not covered');
  const sameName = await post('/routes', {
    name: 'wide',
    source_plugin: 'inbox',
    from: '*',
    to: 'initech',
    target_plugin: 'outbox',
  });
  t.equal(sameName.status, 409);
  t.same(sameName.body.error, {
    code: 'CONFLICT',
    message: 'Route wide exists',
    details: { name: 'Route wide exists' },
  });
  const broaden = await server.call('PUT', `/api/v1/routes/${otherTarget.body.data.id}`, {
    body: { to: '*' },
  });
  t.equal(broaden.status, 200, 'a route may be widened; it does not cover itself');
  const inUse = await server.call('DELETE', '/api/v1/plugins/configs/http-poster/erp');
  t.equal(inUse.status, 409);
  t.same(inUse.body.error, {
    code: 'CONFLICT',
    message: 'Routes use http-poster/erp: wide',
    details: { routes: ['wide'] },
  });
  const audit = await server.call('GET', '/api/v1/audit?kind=route&record_name=wide');
  t.equal(audit.body.data.total, 1, 'route changes are audited');
});
