// Covers organizations and partners (docs/api/parties.md): CRUD, q filter, 409 on duplicates, 404, PUT rules.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);

for (const [path, label, listKey] of [
  ['/api/v1/organizations', 'Organization', 'organizations'],
  ['/api/v1/partners', 'Partner', 'partners'],
] as const) {
  t.test(`${path}: create, read, update, delete`, async (t) => {
    const created = await server.call('POST', path, { body: { name: 'acme', display_name: 'ACME Corp' } });
    t.equal(created.status, 201);
    t.match(created.body, { data: { name: 'acme', display_name: 'ACME Corp' }, error: null });
    const id = created.body.data.id as number;

    const got = await server.call('GET', `${path}/${id}`);
    t.same(got.body.data, created.body.data);

    const dup = await server.call('POST', path, { body: { name: 'acme' } });
    t.equal(dup.status, 409);
    t.equal(dup.body.error.code, 'CONFLICT');
    t.equal(dup.body.error.message, `${label} acme exists`);

    const updated = await server.call('PUT', `${path}/${id}`, { body: { display_name: 'Acme Inc.' } });
    t.equal(updated.status, 200);
    t.equal(updated.body.data.name, 'acme', 'a property left out keeps its value');
    t.equal(updated.body.data.display_name, 'Acme Inc.');

    const roundTrip = await server.call('PUT', `${path}/${id}`, { body: updated.body.data });
    t.equal(roundTrip.status, 200, 'a record read back can be sent again as it is');

    const otherId = await server.call('PUT', `${path}/${id}`, { body: { id: id + 1000 } });
    t.equal(otherId.status, 400);
    t.equal(otherId.body.error.message, 'Validation failed');
    t.ok(otherId.body.error.details.id, 'refused on id');

    const list = await server.call('GET', `${path}?q=INC`);
    t.equal(list.body.data.total, 1);
    t.equal(list.body.data[listKey][0].id, id);
    const none = await server.call('GET', `${path}?q=zzz`);
    t.same(none.body.data, { [listKey]: [], total: 0, limit: 20, offset: 0 });

    const removed = await server.call('DELETE', `${path}/${id}`);
    t.equal(removed.status, 204);
    t.equal(removed.raw, '');
    const gone = await server.call('GET', `${path}/${id}`);
    t.equal(gone.status, 404);
    t.same(gone.body, { data: null, error: { code: 'NOT_FOUND', message: `${label} not found` } });
  });
}

t.test('display_name defaults to the name; names follow the rules', async (t) => {
  const made = await server.call('POST', '/api/v1/organizations', { body: { name: 'globex' } });
  t.equal(made.body.data.display_name, 'globex');
  const bad = await server.call('POST', '/api/v1/organizations', {
    body: { name: 'Not OK', display_name: 7 },
  });
  t.equal(bad.status, 400);
  t.same(bad.body.error, {
    code: 'INVALID_INPUT',
    message: 'Validation failed',
    details: { name: 'Use only lower case letters, digits, _ or -', display_name: 'Must be a text' },
  });
  const long = await server.call('POST', '/api/v1/organizations', { body: { name: 'a'.repeat(65) } });
  t.same(long.body.error.details, { name: 'Must be at most 64 characters' });
});

t.test('renaming onto a taken name is 409 and changes nothing', async (t) => {
  const a = await server.call('POST', '/api/v1/partners', { body: { name: 'one' } });
  await server.call('POST', '/api/v1/partners', { body: { name: 'two' } });
  const clash = await server.call('PUT', `/api/v1/partners/${a.body.data.id}`, { body: { name: 'two' } });
  t.equal(clash.status, 409);
  const still = await server.call('GET', `/api/v1/partners/${a.body.data.id}`);
  t.equal(still.body.data.name, 'one');
});
