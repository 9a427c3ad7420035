// Covers configuration files built to exhaust the server: alias bombs (nine levels of nine aliases, 5,000 aliases of one map) and files nested 10,000 deep (JSON and YAML) are refused by plan and apply with 400 INVALID_INPUT naming the problem, change nothing, and a file using a few aliases or nested 64 deep is still read.
import t from 'tap';
import { sql } from '../helpers/database.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);
await server.call('POST', '/api/v1/partners', { body: { name: 'acme' } });

const tooManyAliases =
  'Uses more than 100 aliases (*name), or aliases that expand too far, as a file built to exhaust memory does; write the repeated parts out';
const tooDeep = 'Maps and lists are nested deeper than 64 levels';

/** Nine anchors, each a list of nine aliases of the one before: 9^9 strings once expanded. */
const laughs = ['a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]']
  .concat(
    [...'bcdefghi'].map((name, i) => `${name}: &${name} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(', ')}]`),
  )
  .join('\n');
const manyAliases = `pier_config: 1\nx: &m {name: acme}\npartners: [${Array(5000).fill('*m').join(', ')}]\n`;
const deepJson = `{"pier_config": 1, "partners": ${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
const deepYaml = `pier_config: 1\npartners:\n${'- '.repeat(10_000)}acme\n`;

const auditCount = async () =>
  (await sql<{ n: number }>(server.db.url, 'select count(*)::int as n from audit_event'))[0]!.n;
const exported = async () => (await server.call('GET', '/api/v1/config')).body.data;

t.test('alias bombs and deep nesting are refused by plan and apply, and change nothing', async (t) => {
  const before = { audit: await auditCount(), config: await exported() };
  const cases = [
    ['nine levels of nine aliases', laughs, { '(file)': tooManyAliases }],
    ['5,000 aliases of one map', manyAliases, { '(file)': tooManyAliases }],
    ['JSON nested 10,000 deep', deepJson, { '(file) line 1': tooDeep }],
    ['YAML nested 10,000 deep', deepYaml, { '(file) line 3': tooDeep }],
  ] as const;
  for (const [what, document, details] of cases) {
    for (const step of ['plan', 'apply']) {
      const answer = await server.call('POST', `/api/v1/config/${step}`, {
        body: { document, prune: true },
      });
      t.equal(answer.status, 400, `${step}, ${what}: ${answer.raw.slice(0, 300)}`);
      t.same(
        answer.body.error,
        { code: 'INVALID_INPUT', message: 'The configuration file has 1 problem(s)', details },
        `${step}, ${what}`,
      );
    }
  }
  t.same({ audit: await auditCount(), config: await exported() }, before, 'nothing changed');
});

t.test('a file with a few aliases, or nested 64 deep, is read', async (t) => {
  const aliased = await server.call('POST', '/api/v1/config/plan', {
    body: {
      document: [
        'pier_config: 1',
        'partners:',
        "  - { name: acme, display_name: &shown Trading partner, x12_acknowledgement: &ack '997' }",
        '  - { name: globex, display_name: *shown, x12_acknowledgement: *ack }',
      ].join('\n'),
    },
  });
  t.equal(aliased.status, 200, aliased.raw);
  t.same(
    aliased.body.data.changes.map((c: { action: string; name: string }) => `${c.action} ${c.name}`),
    ['update acme', 'create globex'],
  );

  // 64 levels in all: the file's map, its list of partners and 62 lists inside it.
  const deep = `{"pier_config": 1, "partners": ${'['.repeat(63)}${']'.repeat(63)}}`;
  const answer = await server.call('POST', '/api/v1/config/plan', { body: { document: deep } });
  t.equal(answer.status, 400, 'refused by the schema, not for its depth');
  t.notOk(JSON.stringify(answer.body.error.details).includes('nested'), answer.raw);
  const deeper = `{"pier_config": 1, "partners": ${'['.repeat(64)}${']'.repeat(64)}}`;
  const over = await server.call('POST', '/api/v1/config/plan', { body: { document: deeper } });
  t.same(over.body.error.details, { '(file) line 1': tooDeep }, 'one level more is refused');
});
