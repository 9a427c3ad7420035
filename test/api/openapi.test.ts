// Covers GET /openapi.yaml (spec 1, 9): valid OpenAPI 3, paths equal to the routes the server
// registered, and every error code of spec section 7 in the error schema and in api/errors.ts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import t from 'tap';
import { parse } from 'yaml';
import { errorCodes } from '../../api/errors.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);

t.test('the document is valid OpenAPI 3 and describes exactly the registered routes', async (t) => {
  const r = await server.call('GET', '/api/v1/openapi.yaml');
  t.equal(r.status, 200);
  t.match(r.headers['content-type'], /yaml/);
  const doc = parse(r.raw);
  t.equal(doc.openapi, '3.0.3');
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
});

t.test('every error code of spec section 7 is in errors.ts and the document, and no other', async (t) => {
  const spec = readFileSync(path.resolve(import.meta.dirname, '../../../shared/spec/rest-api.md'), 'utf8');
  const section = spec.slice(spec.indexOf('## 7. Errors'), spec.indexOf('## 8. Limits'));
  const specCodes = new Set([...section.matchAll(/^\| \d{3} \| ([A-Z_]+) \|/gm)].map((m) => m[1]!));
  t.equal(specCodes.size, 19, 'the whole table was read');
  for (const code of specCodes) t.ok(errorCodes.includes(code as never), `${code} is in errors.ts`);
  const extra = errorCodes.filter((c) => !specCodes.has(c));
  t.same(
    extra.sort(),
    ['FORBIDDEN', 'INVALID_STATE', 'METHOD_NOT_ALLOWED', 'START_FAILED'],
    'only the codes chosen for "not shown" answers are added',
  );
  const doc = parse((await server.call('GET', '/openapi.yaml')).raw);
  t.same(
    doc.components.schemas.ErrorEnvelope.properties.error.properties.code.enum.sort(),
    [...errorCodes].sort(),
  );
});
