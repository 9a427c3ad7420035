// Walks every registered API route with bad input (malformed and non-object bodies, wrong
// types, unknown enum values, over-long texts, unknown properties, bad ids and paging,
// oversized bodies, wrong Content-Type) and asserts a 4xx envelope and that nothing changed.
import t, { type Test } from 'tap';
import { idParams } from '../../api/schemas/common.js';
import { PluginTypeQuery } from '../../api/schemas/plugin-config.js';
import { sql } from '../helpers/database.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);
const doc = server.built.openapi as {
  paths: Record<
    string,
    Record<string, { requestBody?: { content: Record<string, { schema: JsonSchema }> } }>
  >;
};

interface JsonSchema {
  type?: string;
  enum?: unknown[];
  maxLength?: number;
  maximum?: number;
  properties?: Record<string, JsonSchema>;
}

/** Values of the wrong kind for a property, each with what makes it wrong. */
function wrongValues(schema: JsonSchema): [unknown, string][] {
  const out: [unknown, string][] = [];
  if (schema.enum) out.push(['no-such-value', 'unknown enum value']);
  switch (schema.type) {
    case 'string':
      out.push(
        [12345, 'number for a text'],
        [{ nested: true }, 'object for a text'],
        ['a\u0000b', 'NUL byte'],
      );
      if (schema.maxLength !== undefined && schema.maxLength < 100_000) {
        out.push(['x'.repeat(schema.maxLength + 1), 'over-long text']);
      }
      break;
    case 'integer':
    case 'number':
      out.push(['7', 'text for a number'], [true, 'boolean for a number']);
      if (schema.type === 'integer') out.push([1.5, 'fraction for a whole number']);
      if (schema.maximum !== undefined) out.push([schema.maximum + 1e12, 'huge number']);
      break;
    case 'boolean':
      out.push(['yes', 'text for a boolean'], [1, 'number for a boolean']);
      break;
  }
  return out;
}

async function tableCounts(): Promise<Record<string, number>> {
  const tables = await sql<{ tablename: string }>(
    server.db.url,
    "select tablename from pg_tables where schemaname = 'public' and tablename <> 'mikro_orm_migrations'",
  );
  const counts: Record<string, number> = {};
  for (const { tablename } of tables) {
    const [row] = await sql<{ n: number }>(server.db.url, `select count(*)::int as n from "${tablename}"`);
    counts[tablename] = row!.n;
  }
  return counts;
}

const routes = server.built.routes.filter((r) => !r.definition.public);
const before = await tableCounts();
const [settingsBefore] = await sql(server.db.url, 'select * from settings');

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked field by field
function assertRefused(t: Test, r: { status: number; body: any }, what: string, status = 400) {
  t.equal(r.status, status, what);
  t.equal(r.body?.data, null, `${what}: envelope`);
  t.type(r.body?.error?.code, 'string', `${what}: code`);
  t.type(r.body?.error?.message, 'string', `${what}: message`);
}

for (const route of routes) {
  const d = route.definition;
  // A handler that reads its body itself (to name every bad property at once) documents it as bodyDoc.
  const body = d.body ?? d.bodyDoc;
  // A record's numeric id, alone or with more parameters (a partner's control numbers); else a message's UUID.
  const numericId =
    d.params === idParams ||
    (d.params as { shape?: Record<string, unknown> } | undefined)?.shape?.id === idParams.shape.id;
  // Path parameters filled with well-formed values of records that do not exist.
  const sample: Record<string, string> = {
    id: numericId ? '999999' : '00000000-0000-4000-8000-000000000000',
    delivery_id: '999999',
    type: 'file-writer',
    name: 'nothing-here',
    action: 'start',
    direction: 'outbound',
    level: 'interchange',
  };
  const fill = (overrides: Record<string, string>) =>
    route.url.replace(/:(\w+)/g, (_, n: string) => overrides[n] ?? sample[n] ?? 'x');
  // A plugin configuration is created for the type in its query; without it the query is refused first.
  const url = fill({}) + (d.query === PluginTypeQuery ? '?type=file-writer' : '');
  const documented = (
    doc.paths[route.url.slice('/api/v1'.length).replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()] as {
      parameters?: { name: string; in: string }[];
    }
  )?.parameters;
  t.test(`${route.method} ${route.url}`, async (t) => {
    if (d.params === idParams) {
      for (const id of ['abc', '-5', '1e3', '9999999999999', '%00']) {
        const r = await server.call(route.method, fill({ id }), body ? { body: {} } : {});
        assertRefused(t, r, `id ${id}`);
        t.ok(r.body.error.details?.id, `id ${id}: refused on id`);
      }
    } else if (d.params) {
      for (const name of route.url.match(/:(\w+)/g)!.map((m) => m.slice(1))) {
        for (const bad of ['%00', 'x'.repeat(300), '-1', '..%2F..']) {
          const r = await server.call(route.method, fill({ [name]: bad }), body ? { body: {} } : {});
          t.ok([400, 404].includes(r.status), `${name}=${bad.slice(0, 20)}: ${r.status}`);
          t.equal(r.body?.data, null, `${name}=${bad.slice(0, 20)}: envelope`);
        }
      }
    }
    if (route.method === 'GET' && documented?.some((p) => p.name === 'limit')) {
      for (const q of ['limit=0', 'limit=x', 'offset=-1', 'offset=1.5']) {
        const r = await server.call('GET', `${url}?${q}`);
        assertRefused(t, r, q);
        t.ok(r.body.error.details?.[q.split('=')[0]!], `${q}: named`);
      }
    }
    if (route.method === 'GET') {
      // A NUL byte cannot reach PostgreSQL; every text parameter must answer without a 500.
      for (const p of documented ?? []) {
        if (p.in !== 'query' || p.name === 'limit' || p.name === 'offset') continue;
        const r = await server.call('GET', `${url}?${p.name}=a%00b`);
        t.ok(r.status < 500, `${p.name} with a NUL byte: ${r.status}`);
      }
    }
    if (route.method !== 'GET') {
      const r = await server.call(route.method, url, {
        payload: '{}',
        headers: { 'content-type': 'text/plain' },
      });
      assertRefused(t, r, 'text/plain', 415);
      if (d.consumes === 'multipart') {
        // Uploads have their own size limits and form checks, tested with their resources.
        const json = await server.call(route.method, url, { body: {} });
        assertRefused(t, json, 'JSON to an upload', 415);
        t.equal(json.headers.accept, 'multipart/form-data');
        return;
      }
      // The route's own limit where it has one (a configuration file's 16 MiB), else the API's 1 MiB;
      // EDI as JSON (65 MiB) is tested at its limit with its resource.
      const limit = d.bodyLimit ?? 1024 * 1024;
      if (limit <= 16 * 1024 * 1024) {
        const big = await server.call(route.method, url, {
          payload: JSON.stringify({ x: 'y'.repeat(limit + 50_000) }),
        });
        assertRefused(t, big, `over ${limit} bytes`, 413);
      }
    }
    if (!body) return;
    for (const payload of ['{"a":', '[]', '"text"', 'null', '7', 'true']) {
      const r = await server.call(route.method, url, { payload });
      assertRefused(t, r, `body ${payload}`);
      t.equal(r.body.error.message, 'Invalid request body', `body ${payload}`);
      t.type(r.body.error.details?.body, 'string', `body ${payload}: decoder text`);
    }
    const unknown = await server.call(route.method, url, { body: { __bogus: 1 } });
    assertRefused(t, unknown, 'unknown property');
    t.equal(unknown.body.error.details?.__bogus, 'Unknown property');
    const path = route.url.slice('/api/v1'.length).replace(/:(\w+)/g, '{$1}');
    const schema =
      doc.paths[path]![route.method.toLowerCase()]!.requestBody!.content['application/json']!.schema;
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
      for (const [value, why] of wrongValues(prop)) {
        const r = await server.call(route.method, url, { body: { [name]: value } });
        assertRefused(t, r, `${name}: ${why}`);
        t.type(r.body.error.details?.[name], 'string', `${name}: ${why} is refused on ${name}`);
      }
    }
  });
}

t.test('nothing was written by any refused request', async (t) => {
  t.same(await tableCounts(), before);
  const [settingsAfter] = await sql(server.db.url, 'select * from settings');
  t.same(settingsAfter, settingsBefore);
});
