// Covers the HTTP edge rules (docs/api/conventions.md#request-headers, docs/api/conventions.md#lists, docs/api/conventions.md#errors, docs/api/conventions.md#limits): Content-Type and 415 with Accept, body
// limits, malformed bodies, paging errors, path ids, unknown routes, CORS, and 500s that
// log the cause with the user but never tell it.
import { Writable } from 'node:stream';
import t from 'tap';
import { pino } from 'pino';
import { buildApp } from '../../api/app.js';
import { coreModule } from '../../api/modules.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t, { env: { ALLOWED_ORIGINS: 'https://ui.example.com' } });
const orgs = '/api/v1/organizations';

t.test('415 with Accept when Content-Type is missing or wrong, before anything happens', async (t) => {
  const cases: [string, Record<string, string>][] = [
    ['POST', {}],
    ['POST', { 'content-type': 'text/plain' }],
    ['POST', { 'content-type': 'application/json; charset=latin1' }],
    ['POST', { 'content-type': 'application/x-www-form-urlencoded' }],
  ];
  for (const [method, headers] of cases) {
    const r = await server.app.inject({
      method: method as 'POST',
      url: orgs,
      headers: { authorization: `Bearer ${server.token}`, ...headers },
      payload: '{"name":"never"}',
    });
    t.equal(r.statusCode, 415, JSON.stringify(headers));
    t.equal(r.headers.accept, 'application/json');
    t.same(JSON.parse(r.body), {
      data: null,
      error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type must be application/json' },
    });
  }
  const made = await server.call('POST', orgs, { body: { name: 'one' } });
  const del = await server.app.inject({
    method: 'DELETE',
    url: `${orgs}/${made.body.data.id}`,
    headers: { authorization: `Bearer ${server.token}` },
  });
  t.equal(del.statusCode, 415, 'DELETE needs the JSON content type too');
  t.equal((await server.call('GET', `${orgs}/${made.body.data.id}`)).status, 200, 'and nothing was deleted');
  const charset = await server.call('PUT', `${orgs}/${made.body.data.id}`, {
    body: { display_name: 'One' },
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
  t.equal(charset.status, 200, 'charset=utf-8 is allowed');
  const list = await server.call('GET', orgs);
  t.equal(list.body.data.total, 1, 'no organization named never');
});

t.test('bodies over 1 MiB are 413 PAYLOAD_TOO_LARGE', async (t) => {
  const big = JSON.stringify({ name: 'big', display_name: 'x'.repeat(1024 * 1024) });
  const r = await server.call('POST', orgs, { payload: big });
  t.equal(r.status, 413);
  t.same(r.body.error, {
    code: 'PAYLOAD_TOO_LARGE',
    message: 'Request body is larger than the limit of 1 MiB',
  });
});

t.test('a body that is not a JSON object is Invalid request body', async (t) => {
  const cases: [string, RegExp][] = [
    ['{"name": ', /JSON/],
    ['[{"name":"x"}]', /^Expected a JSON object, got a list$/],
    ['"acme"', /^Expected a JSON object, got a string$/],
    ['42', /^Expected a JSON object, got a number$/],
    ['null', /^Expected a JSON object, got null$/],
    ['', /^A JSON object is required$/],
  ];
  for (const [payload, detail] of cases) {
    const r = await server.call('POST', orgs, { payload });
    t.equal(r.status, 400, payload);
    t.equal(r.body.error.code, 'INVALID_INPUT');
    t.equal(r.body.error.message, 'Invalid request body');
    t.match(r.body.error.details.body, detail, payload);
  }
});

t.test('paging parameters: whole numbers, limit capped at 500', async (t) => {
  for (const bad of ['0', '-1', 'abc', '1.5', '', '1e3']) {
    const r = await server.call('GET', `${orgs}?limit=${bad}`);
    t.equal(r.status, 400, `limit=${bad}`);
    t.same(r.body.error.details, { limit: 'Must be a whole number of at least 1' }, `limit=${bad}`);
  }
  for (const bad of ['-1', 'x', '99999999999999999999']) {
    const r = await server.call('GET', `${orgs}?offset=${bad}`);
    t.equal(r.status, 400, `offset=${bad}`);
    t.same(r.body.error.details, { offset: 'Must be a whole number of at least 0' });
  }
  const huge = await server.call('GET', `${orgs}?limit=100000000000000000000&offset=1000000`);
  t.equal(huge.status, 200);
  t.equal(huge.body.data.limit, 500);
  t.same(huge.body.data.organizations, []);
  const twice = await server.call('GET', `${orgs}?limit=1&limit=2`);
  t.equal(twice.status, 400, 'a parameter given twice is refused');
});

t.test('path ids must be whole numbers; unknown routes are 404 in the envelope', async (t) => {
  for (const id of ['abc', '-1', '1.5', '0', '99999999999']) {
    const r = await server.call('GET', `${orgs}/${id}`);
    t.equal(r.status, 400, id);
    t.equal(r.body.error.code, 'INVALID_INPUT');
    t.ok(r.body.error.details.id, id);
  }
  const r = await server.call('GET', '/api/v1/nothing-here');
  t.equal(r.status, 404);
  t.same(r.body.error, { code: 'NOT_FOUND', message: 'No route GET /api/v1/nothing-here' });
  const noAuth = await server.call('GET', '/api/v1/nothing-here', { token: null });
  t.equal(noAuth.status, 401, 'unknown API paths still need a credential');
});

t.test('CORS lets only ALLOWED_ORIGINS in', async (t) => {
  const preflight = (origin: string) =>
    server.app.inject({
      method: 'OPTIONS',
      url: orgs,
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
  const allowed = await preflight('https://ui.example.com');
  t.equal(allowed.headers['access-control-allow-origin'], 'https://ui.example.com');
  const other = await preflight('https://evil.example.net');
  t.equal(other.headers['access-control-allow-origin'], undefined);
});

t.test('a server failure is INTERNAL_ERROR; the cause is logged with the user, never told', async (t) => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _e, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const built = await buildApp(server.ctx, {
    logger: pino({ level: 'error' }, sink),
    modules: [
      coreModule,
      {
        name: 'broken',
        register(router) {
          router.add({
            method: 'GET',
            url: '/broken',
            tag: 'Test',
            summary: 'fails',
            handler: async () => {
              throw new Error('disk quota exceeded on /var/lib/pier');
            },
          });
        },
      },
    ],
  });
  t.teardown(() => built.app.close());
  const r = await built.app.inject({
    method: 'GET',
    url: '/api/v1/broken',
    headers: { authorization: `Bearer ${server.token}` },
  });
  t.equal(r.statusCode, 500);
  t.same(JSON.parse(r.body), {
    data: null,
    error: { code: 'INTERNAL_ERROR', message: 'Internal server error' },
  });
  t.notOk(r.body.includes('quota'));
  const logged = lines.join('');
  t.match(logged, /"user":"sa:tester"/);
  t.match(logged, /disk quota exceeded/);
});

t.test('GET /health is unwrapped and answers 503 when the database is down', async (t) => {
  const up = await server.call('GET', '/health', { token: null });
  t.equal(up.status, 200);
  t.same(Object.keys(up.body).sort(), ['database', 'status', 'timestamp']);
  t.match(up.body, { status: 'healthy', database: 'up' });
  const other = await startTestServer(t);
  await other.database.orm.close(true);
  const down = await other.call('GET', '/api/v1/health', { token: null });
  t.equal(down.status, 503);
  t.match(down.body, { status: 'unhealthy', database: 'down' });
});
