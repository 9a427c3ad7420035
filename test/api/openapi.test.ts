// Covers GET /openapi.yaml (docs/api/conventions.md#versioning): valid OpenAPI 3, paths equal to the routes the server
// registered, X-Requested-With declared on the uploads, each upload and the EDI-as-JSON send with one body type, GET /messages' search parameters, and the error codes of docs/errors.md equal to api/errors.ts and the error schema.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import t from 'tap';
import { parse } from 'yaml';
import { errorCodes, errorTable } from '../../api/errors.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);

t.test('the document is valid OpenAPI 3 and describes exactly the registered routes', async (t) => {
  const r = await server.call('GET', '/api/v1/openapi.yaml');
  t.equal(r.status, 200);
  t.match(r.headers['content-type'], /yaml/);
  const doc = parse(r.raw);
  t.equal(doc.openapi, '3.1.0');
  t.match(
    doc.webhooks.alert.post,
    {
      parameters: [{ name: 'webhook-id' }, { name: 'webhook-timestamp' }, { name: 'webhook-signature' }],
      requestBody: {
        content: { 'application/json': { schema: { properties: { type: {}, timestamp: {}, data: {} } } } },
      },
    },
    'the notification webhook body (format json) is documented',
  );
  await t.resolves(SwaggerParser.validate(structuredClone(doc)), 'validates');

  const documented = new Set<string>();
  for (const [p, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
    for (const method of Object.keys(ops))
      documented.add(`${method.toUpperCase()} /api/v1${p.replace(/\{(\w+)\}/g, ':$1')}`);
  }
  const registered = new Set(
    server.built.fastifyRoutes
      .filter((r) => r.url.startsWith('/api/v1/') && r.url !== '/api/v1/openapi.yaml')
      .filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS')
      .map((r) => `${r.method} ${r.url}`),
  );
  t.same([...documented].sort(), [...registered].sort());
  t.ok(documented.has('GET /api/v1/organizations'));
  t.same(doc.components.securitySchemes.apiToken.scheme, 'bearer');
  t.same(doc.paths['/health'].get.security, [], '/health is public');
  for (const upload of [doc.paths['/messages'].post, doc.paths['/certificates'].post]) {
    t.match(
      upload.parameters,
      [{ name: 'X-Requested-With', in: 'header', required: true }],
      `${upload.summary}: X-Requested-With is a declared header`,
    );
  }
  const bodyTypes = (op: { requestBody: { content: Record<string, unknown> } }) =>
    Object.keys(op.requestBody.content);
  t.same(bodyTypes(doc.paths['/messages'].post), ['multipart/form-data'], 'a file by hand is multipart only');
  t.same(bodyTypes(doc.paths['/messages/edi'].post), ['application/json'], 'EDI as JSON has its own path');
  t.ok(doc.paths['/messages/edi'].post.responses['415'], 'with its 415');
  t.notOk(
    JSON.stringify(doc.paths['/messages/edi'].post.parameters ?? []).includes('X-Requested-With'),
    'JSON needs no X-Requested-With',
  );
  const search = (doc.paths['/messages'].get.parameters as { name: string; description?: string }[]).map(
    (p) => p.name,
  );
  for (const name of ['q', 'direction', 'target'])
    t.ok(search.includes(name), `GET /messages documents ${name}`);
  t.notOk(
    JSON.stringify(doc.paths['/organizations'].post.parameters ?? []).includes('X-Requested-With'),
    'only uploads need it',
  );
});

t.test(
  'docs/errors.md, api/errors.ts and the document list the same codes with the same status',
  async (t) => {
    const table = readFileSync(path.resolve(import.meta.dirname, '../../docs/errors.md'), 'utf8');
    const documented = new Map(
      [...table.matchAll(/^\|\s*(\d{3})\s*\|\s*([A-Z_]+)\s*\|/gm)].map((m) => [m[2]!, Number(m[1])]),
    );
    t.ok(documented.size >= 19, 'the whole table was read');
    t.same(
      Object.fromEntries([...documented].sort()),
      Object.fromEntries(errorCodes.map((code) => [code, errorTable[code].status]).sort()),
      'every code in errors.ts is in docs/errors.md with its status, and no other',
    );
    const doc = parse((await server.call('GET', '/openapi.yaml')).raw);
    t.same(
      doc.components.schemas.ErrorEnvelope.properties.error.properties.code.enum.sort(),
      [...errorCodes].sort(),
    );
  },
);
