// Covers the words of the forms: every property a request body takes (every API write and every plugin type's configuration) has a label and help for people, and the OpenAPI document gives each property the title and description the form prints beside the field.
import t from 'tap';
import { parse } from 'yaml';
import { pluginTypes } from '../../actors/index.js';
import { fieldTexts } from '../../api/schemas/field-text.js';
import { pluginConfigSchemas } from '../../api/schemas/plugin-config.js';
import { kindOf, shapeOf, specFromSchema } from '../../api/ui/form.js';
import { startTestServer } from '../helpers/server.js';

type Json = Record<string, unknown>;

const server = await startTestServer(t, { developerBuild: true });
const doc = parse((await server.call('GET', '/openapi.yaml')).raw) as {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Json }> } }>>;
};

/** Properties a client writes (read-only ones say "ignored when sent"). */
function writable(schema: Json): [string, Json][] {
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  return Object.entries(properties).filter(
    ([, p]) => !String(p.description ?? '').startsWith('Read only') && !('not' in p),
  );
}

/** Every object schema in a request body, through unions. */
function objects(schema: Json | undefined): Json[] {
  if (!schema) return [];
  const inner = [...((schema.anyOf ?? []) as Json[]), ...((schema.oneOf ?? []) as Json[])];
  return [...(schema.properties ? [schema] : []), ...inner.flatMap(objects)];
}

t.test('every property of every JSON request body has a title and a description', async (t) => {
  let checked = 0;
  for (const [url, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const schema = operation.requestBody?.content?.['application/json']?.schema;
      for (const object of objects(schema)) {
        for (const [name, property] of writable(object)) {
          checked++;
          const where = `${method.toUpperCase()} ${url} ${name}`;
          t.ok(property.title, `${where} has a label`);
          t.ok(property.description, `${where} has help`);
          t.not(property.title, name, `${where}: the label is words, not the property name`);
        }
      }
    }
  }
  t.ok(checked > 200, `${checked} properties checked`);
});

t.test("each plugin type's form says what the OpenAPI document says", async (t) => {
  const component = parse((await server.call('GET', '/openapi.yaml')).raw) as {
    paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Json }> } }>>;
  };
  const bodies = objects(
    component.paths['/plugins/configs']?.post?.requestBody?.content?.['application/json']?.schema,
  );
  t.equal(bodies.length, pluginTypes.length, 'one create body per type');
  for (const type of pluginTypes) {
    const shape = shapeOf(pluginConfigSchemas[type].create);
    const names = Object.keys(shape).filter((n) => !['never', 'unknown'].includes(kindOf(shape[n])));
    const body = bodies.find((b) => names.every((n) => n in ((b.properties ?? {}) as Json)))!;
    t.ok(body, `${type}: its create body is in the document`);
    for (const name of names) {
      const spec = specFromSchema(name, shape[name]!);
      const property = (body.properties as Record<string, Json>)[name]!;
      t.equal(spec.label, property.title, `${type} ${name}: the same label`);
      t.equal(spec.hint, property.description, `${type} ${name}: the same help`);
      t.ok(name in fieldTexts, `${type} ${name}: has an entry in api/schemas/field-text.ts`);
    }
  }
});

t.test('labels read as words: the ones the issue found are gone', async (t) => {
  const receiver = specFromSchema(
    'max_in_flight_mib_per_partner',
    shapeOf(pluginConfigSchemas['as2-receiver'].create).max_in_flight_mib_per_partner!,
  );
  t.equal(receiver.label, 'MiB in progress per partner');
  t.equal(fieldTexts.as2id?.label, 'AS2 id');
  t.equal(fieldTexts.tls_certificate_id?.label, 'HTTPS certificate');
});
