/**
 * fast-check arbitraries for the fuzz suite, derived from the served OpenAPI document's JSON
 * schemas (zod-fast-check needs zod 3; the document is what clients see anyway), mixed with
 * hostile values: odd strings, edge numbers, deep nesting, prototype keys.
 */
import fc from 'fast-check';

export type Json = Record<string, unknown>;

/** Strings that have broken parsers before: control bytes, lone surrogates, paths, huge ones. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\r\n',
    '\ud800',
    '../../etc/passwd',
    '%00',
    '%',
    '🙂',
    '__proto__',
    'constructor',
    '<script>alert(1)</script>',
    "' or 1=1 --",
    '0',
    '-1',
    '1e309',
    'null',
    'x'.repeat(5000),
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

export const hostileNumber: fc.Arbitrary<number> = fc.constantFrom(
  0,
  -1,
  0.5,
  -0,
  2 ** 31,
  2 ** 53,
  -(2 ** 63),
  1e308,
  Number.MAX_SAFE_INTEGER + 2,
);

/** Any JSON value at all, with deep nesting now and then. */
export const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: hostileString },
  { weight: 1, arbitrary: hostileNumber },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 20, max: 200 }).map((depth) => {
      let v: unknown = 1;
      for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
      return v;
    }),
  },
);

/** The value in `weight` of `outOf` cases, else null (fc.option's freq counts the other way). */
export function sometimes<T>(arb: fc.Arbitrary<T>, weight: number, outOf: number): fc.Arbitrary<T | null> {
  return fc.oneof({ weight, arbitrary: arb }, { weight: outOf - weight, arbitrary: fc.constant(null) });
}

function resolve(schema: Json, doc: Json): Json {
  let current = schema;
  for (let i = 0; i < 10 && typeof current.$ref === 'string'; i++) {
    const pointer = (current.$ref as string).replace(/^#\//, '').split('/');
    current = pointer.reduce<Json>((at, key) => at[key.replace(/~1/g, '/').replace(/~0/g, '~')] as Json, doc);
  }
  return current;
}

function stringOf(schema: Json): fc.Arbitrary<string> {
  if (schema.format === 'uuid') return fc.uuid();
  if (schema.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
  if (schema.format === 'email') return fc.emailAddress();
  if (schema.format === 'uri') return fc.webUrl();
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = Math.min(typeof schema.maxLength === 'number' ? schema.maxLength : 40, 80);
  if (typeof schema.pattern === 'string') {
    try {
      // Not filtered by length: a filter that rarely passes would spin; a long one is hostile enough.
      return fc.stringMatching(new RegExp(schema.pattern), { size: 'xsmall' });
    } catch {
      // A pattern fast-check cannot generate from: plain strings below.
    }
  }
  return fc.string({ minLength, maxLength: Math.max(maxLength, minLength) });
}

/**
 * Values of the schema, now and then replaced by a hostile one (`hostility` of 10 parts), so
 * most requests get past the first check and reach the rules behind it.
 */
export function arbitraryOf(
  schema: Json | undefined,
  doc: Json,
  depth = 0,
  hostility = 1,
): fc.Arbitrary<unknown> {
  const valid = validOf(schema ?? {}, doc, depth, hostility);
  if (hostility === 0) return valid;
  return fc.oneof(
    { weight: 10 - hostility, arbitrary: valid },
    { weight: hostility, arbitrary: hostileJson },
  );
}

function validOf(raw: Json, doc: Json, depth: number, hostility: number): fc.Arbitrary<unknown> {
  const schema = resolve(raw, doc);
  const inner = (s: Json | undefined) => arbitraryOf(s, doc, depth + 1, hostility);
  let arb: fc.Arbitrary<unknown>;
  const choices = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (choices && choices.length > 0)
    arb = fc.oneof(...choices.map((c) => validOf(c, doc, depth + 1, hostility)));
  else if (Array.isArray(schema.allOf) && schema.allOf.length > 0)
    arb = validOf(schema.allOf[0] as Json, doc, depth + 1, hostility);
  else if (Array.isArray(schema.enum) && schema.enum.length > 0)
    arb = fc.constantFrom(...(schema.enum as unknown[]));
  else if (schema.type === 'string') arb = stringOf(schema);
  else if (schema.type === 'integer' || schema.type === 'number') {
    const min = typeof schema.minimum === 'number' ? schema.minimum : -1000;
    const max = typeof schema.maximum === 'number' ? schema.maximum : Math.max(min + 1000, 1000);
    arb =
      schema.type === 'integer'
        ? fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31 - 1) })
        : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  } else if (schema.type === 'boolean') arb = fc.boolean();
  else if (schema.type === 'array') {
    arb = depth > 4 ? fc.constant([]) : fc.array(inner(schema.items as Json), { maxLength: 3 });
  } else if (schema.type === 'object' || schema.properties) {
    const properties = (schema.properties ?? {}) as Record<string, Json>;
    const required = (schema.required ?? []) as string[];
    if (depth > 4 || Object.keys(properties).length === 0)
      arb = fc.dictionary(fc.string({ maxLength: 8 }), inner({}), { maxKeys: 2 });
    else {
      const record = fc.record(
        Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, inner(s)])),
        { requiredKeys: required.filter((k) => k in properties) },
      );
      // Now and then a property the schema does not know, or a prototype key.
      arb =
        hostility === 0
          ? record
          : fc
              .tuple(record, sometimes(fc.constantFrom('__proto__', 'constructor', 'unknown_property'), 1, 8))
              .map(([value, extra]) => {
                if (extra === null) return value;
                const out = { ...(value as Json) };
                Object.defineProperty(out, extra, {
                  value: 1,
                  enumerable: true,
                  configurable: true,
                  writable: true,
                });
                return out;
              });
    }
  } else arb = fc.jsonValue({ maxDepth: 1 });
  return schema.nullable === true ? fc.option(arb, { nil: null, freq: 5 }) : arb;
}
