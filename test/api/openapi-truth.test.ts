// Covers the OpenAPI document telling the truth about the server: integer ids from 1, bounded paging, the Content-Type of body-less POST and DELETE with its 415, 400/401 on every operation, 405 with Allow; and validation naming __proto__, constructor and every bad property of PUT /settings at once.
import t from 'tap';
import { parse } from 'yaml';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);
const doc = parse((await server.call('GET', '/openapi.yaml')).raw) as {
  paths: Record<string, Record<string, Operation>>;
};
interface Operation {
  parameters?: { name: string; in: string; schema: Record<string, unknown> }[];
  responses: Record<string, unknown>;
  requestBody?: { required?: boolean; content: Record<string, unknown> };
  security?: unknown[];
}
const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({ path, method, op })),
);

t.test('path ids are integers from 1; limit and offset are bounded integers', async (t) => {
  const ids = operations.flatMap(({ op }) =>
    (op.parameters ?? []).filter(
      (p) => p.in === 'path' && /(^|_)id$/.test(p.name) && p.schema.format !== 'uuid',
    ),
  );
  t.ok(ids.length > 10, 'many operations take an id (message ids are UUIDs)');
  for (const id of ids) t.match(id.schema, { type: 'integer', minimum: 1, maximum: Number });
  const paging = operations.flatMap(({ op }) =>
    (op.parameters ?? []).filter((p) => p.in === 'query' && (p.name === 'limit' || p.name === 'offset')),
  );
  t.ok(paging.length > 10, 'many lists page');
  for (const p of paging) {
    t.equal(p.schema.type, 'integer', p.name);
    t.equal(p.schema.minimum, p.name === 'limit' ? 1 : 0, p.name);
    t.type(p.schema.maximum, 'number', p.name);
  }
  const zero = await server.call('GET', '/api/v1/organizations/0');
  t.equal(zero.status, 400, 'the server refuses 0, as documented');
});

t.test('every operation documents 400 and 401; every POST and DELETE its Content-Type and 415', async (t) => {
  for (const { path, method, op } of operations) {
    const name = `${method.toUpperCase()} ${path}`;
    t.ok(op.responses['400'], `${name}: 400`);
    if (!op.security || op.security.length > 0) t.ok(op.responses['401'], `${name}: 401`);
    if (method === 'post' || method === 'delete' || method === 'put') {
      t.ok(op.responses['415'], `${name}: 415`);
      t.ok(op.requestBody, `${name}: its Content-Type is documented`);
    }
  }
  const noType = await server.call('DELETE', '/api/v1/organizations/1', {
    headers: { 'content-type': 'text/plain' },
    payload: '',
  });
  t.equal(noType.status, 415, 'a body-less DELETE without the JSON content type is 415');
});

t.test('a method the path does not take is 405 with Allow', async (t) => {
  const patch = await server.call('PATCH', '/api/v1/organizations', { body: {} });
  t.equal(patch.status, 405, patch.raw);
  t.equal(patch.body.error.code, 'METHOD_NOT_ALLOWED');
  t.match(patch.headers.allow, /GET/);
  t.match(patch.headers.allow, /POST/);
  const del = await server.call('DELETE', '/api/v1/organizations', { body: {} });
  t.equal(del.status, 405);
  const put = await server.call('PUT', '/api/v1/services', { body: {} });
  t.equal(put.status, 405);
  t.match(put.headers.allow, /GET/);
  const unknown = await server.call('GET', '/api/v1/no-such-thing');
  t.equal(unknown.status, 404, 'an unknown path stays 404');
});

t.test('__proto__ and constructor in a JSON body are refused by name', async (t) => {
  for (const key of ['__proto__', 'constructor']) {
    const answer = await server.call('POST', '/api/v1/organizations', {
      payload: `{"name":"acme","${key}":{"x":1}}`,
      headers: { 'content-type': 'application/json' },
    });
    t.equal(answer.status, 400, answer.raw);
    t.ok(Object.hasOwn(answer.body.error.details ?? {}, key), `details name ${key}: ${answer.raw}`);
  }
});

t.test('PUT /settings names every bad property at once, cross-field rules included', async (t) => {
  const answer = await server.call('PUT', '/api/v1/settings', {
    body: { storage_backend: 's3', delivery_max_dispatches: 'many', storage_s3_endpoint: 'not a url' },
  });
  t.equal(answer.status, 400, answer.raw);
  t.match(answer.body.error.details, {
    delivery_max_dispatches: String,
    storage_s3_bucket: /Required for S3 storage/,
    storage_s3_region: /Required for S3 storage/,
    storage_s3_endpoint: String,
  });
  const fine = await server.call('GET', '/api/v1/settings');
  t.equal(fine.body.data.storage_backend, 'local', 'nothing saved');
});
