// Covers which environment variables a configuration file may read: a reference to one outside the export's prefixes (PIER_SECRET_KEY, DATABASE_URL, HOME) is refused by plan and apply with the same answer whether the variable is set or not, nothing is stored or audited, and a variable under PIER_INSTANCE_ or PIER_PARTNER_ is still read.
import t from 'tap';
import { sql } from '../helpers/database.js';
import { startTestServer, type Answer } from '../helpers/server.js';

const server = await startTestServer(t);
await server.call('POST', '/api/v1/service-accounts', { body: { name: 'ops', role: 'operator' } });
const operator = (
  await server.call('POST', '/api/v1/api-tokens', { body: { service_account: 'ops', label: 'x' } })
).body.data.token as string;

const refusal =
  'Write a secret as a reference to an environment variable named PIER_PARTNER_… or PIER_INSTANCE_…, such as ${env:PIER_PARTNER_ACME_HTTP_BASIC_PASSWORD}; a secret in clear, or any other variable, is refused';

/** An http-poster posting with Basic auth whose password is `reference`. */
const posterFile = (reference: string) => ({
  pier_config: 1,
  instances: [
    {
      type: 'http-poster',
      name: 'erp-post',
      enabled: false,
      settings: { url: 'https://erp.example/in', http_basic_username: 'pier' },
      secrets: { http_basic_password: reference },
    },
  ],
});
/** A partner whose AS2 endpoint is sent `reference` as its Basic auth password. */
const partnerFile = (reference: string) => ({
  pier_config: 1,
  partners: [
    {
      name: 'acme',
      as2: {
        as2id: 'ACME',
        endpoint: 'https://as2.acme.example/as2',
        encryption_algorithm: 'none',
        mdn_signed: false,
        http_basic_user: 'pier',
        http_basic_password: reference,
      },
    },
  ],
});

const plan = (file: unknown) =>
  server.call('POST', '/api/v1/config/plan', { body: { document: JSON.stringify(file) }, token: operator });
const apply = (file: unknown) =>
  server.call('POST', '/api/v1/config/apply', { body: { document: JSON.stringify(file) } });

const count = async (query: string) => (await sql<{ n: number }>(server.db.url, query))[0]!.n;
const stored = async () => ({
  instances: await count('select count(*)::int as n from plugin_config'),
  partners: await count('select count(*)::int as n from partner'),
  audit: await count('select count(*)::int as n from audit_event'),
});

/** The answer with `name` set to `value`, then unset; the variable is as it was afterwards. */
async function setAndUnset(name: string, value: string, call: () => Promise<Answer>) {
  const before = process.env[name];
  try {
    process.env[name] = value;
    const set = await call();
    delete process.env[name];
    const unset = await call();
    return { set, unset };
  } finally {
    if (before === undefined) delete process.env[name];
    else process.env[name] = before;
  }
}

t.test('a reference outside the prefixes is refused, the same whether set or not', async (t) => {
  const before = await stored();
  const variables = ['PIER_SECRET_KEY', 'DATABASE_URL', 'HOME'];
  for (const name of variables) {
    const value = `the-value-of-${name}-${Math.random()}`;
    const reference = `\${env:${name}}`;
    const cases = [
      ['plan', 'instance', () => plan(posterFile(reference)), 'instances[0].secrets.http_basic_password'],
      ['apply', 'instance', () => apply(posterFile(reference)), 'instances[0].secrets.http_basic_password'],
      ['plan', 'partner', () => plan(partnerFile(reference)), 'partners[0].as2.http_basic_password'],
      ['apply', 'partner', () => apply(partnerFile(reference)), 'partners[0].as2.http_basic_password'],
    ] as const;
    for (const [step, section, call, path] of cases) {
      const { set, unset } = await setAndUnset(name, value, call);
      const what = `${step} of ${section} with \${env:${name}}`;
      t.equal(set.status, 400, `${what}: ${set.raw}`);
      t.same(
        set.body.error,
        {
          code: 'INVALID_INPUT',
          message: 'The configuration file has 1 problem(s)',
          details: { [path]: refusal },
        },
        what,
      );
      t.equal(unset.raw, set.raw, `${what}: the same answer set and unset`);
      t.same(unset.headers['content-length'], set.headers['content-length']);
      t.notOk(set.raw.includes(value), `${what}: the value is not in the answer`);
    }
  }
  t.same(await stored(), before, 'nothing stored, nothing audited');
});

t.test('a reference in clear text, or with a bare prefix, is refused the same way', async (t) => {
  for (const reference of ['clear-text', '${env:PIER_INSTANCE_}', '${env:PIER_PARTNERX}', '${ENV:HOME}']) {
    const answer = await plan(posterFile(reference));
    t.equal(answer.status, 400, reference);
    t.same(answer.body.error.details, { 'instances[0].secrets.http_basic_password': refusal }, reference);
  }
});

t.test('variables under PIER_INSTANCE_ and PIER_PARTNER_ are read', async (t) => {
  const missing = await apply(posterFile('${env:PIER_INSTANCE_ERP_POST_HTTP_BASIC_PASSWORD}'));
  t.equal(missing.status, 400, 'a variable of the file that is not set is a problem at its path');
  t.same(missing.body.error.details, {
    'instances[0].secrets.http_basic_password':
      'The environment variable PIER_INSTANCE_ERP_POST_HTTP_BASIC_PASSWORD is not set',
  });

  process.env.PIER_INSTANCE_ERP_POST_HTTP_BASIC_PASSWORD = 'poster-Secret-31';
  process.env.PIER_PARTNER_ACME_HTTP_BASIC_PASSWORD = 'acme-Secret-77';
  t.teardown(() => {
    delete process.env.PIER_INSTANCE_ERP_POST_HTTP_BASIC_PASSWORD;
    delete process.env.PIER_PARTNER_ACME_HTTP_BASIC_PASSWORD;
  });
  const poster = await apply(posterFile('${env:PIER_INSTANCE_ERP_POST_HTTP_BASIC_PASSWORD}'));
  t.equal(poster.status, 200, poster.raw);
  const partner = await apply(partnerFile('${env:PIER_PARTNER_ACME_HTTP_BASIC_PASSWORD}'));
  t.equal(partner.status, 200, partner.raw);
  const config = await server.call('GET', '/api/v1/plugins/configs/http-poster/erp-post');
  t.same(config.body.data.secrets_set, ['http_basic_password'], 'the password is stored');
  t.equal(
    await count(
      "select count(*)::int as n from as2_remote_profile where as2id = 'ACME' and http_basic_password is not null",
    ),
    1,
    "the partner's password is stored",
  );
});
