// Covers /api/v1/oidc-providers (docs/api/oidc-providers.md): defaults, every field rule, the write-only client
// secret (sealed at rest, kept, required again with a new issuer), conflicts, and audit rows of
// kind oidc-provider with the secret marked and never valued.
import t from 'tap';
import { sql } from '../helpers/database.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);
const base = '/api/v1/oidc-providers';
const secret = 'a-very-secret-client-secret';

const valid = {
  name: 'keycloak',
  display_name: 'Company sign-in',
  issuer_url: 'https://id.example.com/realms/b2b',
  client_id: 'pier',
  client_secret: secret,
};

t.test('create with defaults; the secret is never returned and sealed at rest', async (t) => {
  const made = await server.call('POST', base, { body: valid });
  t.equal(made.status, 201, made.raw);
  t.same(Object.keys(made.body.data).sort(), [
    'accept_tokens_without_audience',
    'api_audience',
    'api_scopes',
    'auto_provision_role',
    'client_id',
    'created_at',
    'display_name',
    'enabled',
    'id',
    'issuer_url',
    'name',
    'scopes',
    'sign_in',
    'updated_at',
  ]);
  t.match(made.body.data, {
    name: 'keycloak',
    enabled: true,
    scopes: 'openid profile email',
    api_scopes: '',
    api_audience: '',
    sign_in: true,
    accept_tokens_without_audience: false,
    auto_provision_role: '',
  });
  const id = made.body.data.id;
  const [row] = await sql<{ client_secret_sealed: string }>(
    server.db.url,
    'select client_secret_sealed from oidc_provider where id = $1',
    [id],
  );
  t.match(row!.client_secret_sealed, /^v1:/, 'sealed');
  t.notMatch(row!.client_secret_sealed, secret);
  for (const answer of [
    made,
    await server.call('GET', `${base}/${id}`),
    await server.call('GET', base),
    await server.call('PUT', `${base}/${id}`, { body: { display_name: 'Sign in' } }),
  ]) {
    t.notMatch(answer.raw, secret, 'no answer carries the secret');
  }
  const list = await server.call('GET', base);
  t.equal(list.body.data.total, 1);
  t.equal(list.body.data.oidc_providers[0].display_name, 'Sign in');
});

t.test('field rules answer 400 on the field', async (t) => {
  const cases: [Record<string, unknown>, Record<string, string>][] = [
    [{ ...valid, name: 'Key Cloak' }, { name: 'Use only lower case letters, digits, _ or -' }],
    [
      { ...valid, name: 'a', issuer_url: 'http://id.example.com' },
      { issuer_url: 'Must be an https URL (http only for localhost)' },
    ],
    [{ ...valid, name: 'b', issuer_url: 'not a url' }, { issuer_url: 'Must be an absolute https URL' }],
    [
      { ...valid, name: 'c', issuer_url: 'https://u:p@id.example.com' },
      { issuer_url: 'Must not contain credentials, a query or a fragment' },
    ],
    [{ ...valid, name: 'd', client_secret: undefined }, { client_secret: 'Required when sign_in is on' }],
    [{ ...valid, name: 'e', scopes: 'profile email' }, { scopes: 'Must include openid when sign_in is on' }],
    [{ ...valid, name: 'f', sign_in: 'yes' }, { sign_in: 'Must be true or false' }],
    [
      { ...valid, name: 'g', auto_provision_role: 'admin' },
      { auto_provision_role: 'Must be empty, viewer or operator' },
    ],
    [{ ...valid, name: 'h', colour: 'blue' }, { colour: 'Unknown property' }],
  ];
  for (const [body, details] of cases) {
    const r = await server.call('POST', base, { body });
    t.equal(r.status, 400, JSON.stringify(body));
    t.equal(r.body.error.code, 'INVALID_INPUT');
    t.same(r.body.error.details, details);
  }
  const local = await server.call('POST', base, {
    body: { name: 'local-idp', issuer_url: 'http://127.0.0.1:9999', client_id: 'x', client_secret: 'y' },
  });
  t.equal(local.status, 201, 'http is fine for localhost');
  const tokensOnly = await server.call('POST', base, {
    body: {
      name: 'machines',
      issuer_url: 'https://login.example.net/tenant/v2.0',
      sign_in: false,
      scopes: '',
    },
  });
  t.equal(tokensOnly.status, 201, 'a token-only provider needs no client');
  const count = await sql(server.db.url, 'select name from oidc_provider order by name');
  t.same(
    count.map((r) => r.name),
    ['keycloak', 'local-idp', 'machines'],
    'nothing half-written',
  );
});

t.test('name and issuer_url are unique', async (t) => {
  const dupName = await server.call('POST', base, {
    body: { ...valid, issuer_url: 'https://other.example.com' },
  });
  t.equal(dupName.status, 409);
  t.equal(dupName.body.error.code, 'CONFLICT');
  t.equal(dupName.body.error.message, 'Identity provider keycloak exists');
  const dupIssuer = await server.call('POST', base, { body: { ...valid, name: 'twin' } });
  t.equal(dupIssuer.status, 409);
  t.equal(dupIssuer.body.error.message, 'Identity provider keycloak has this issuer URL');
});

t.test('the secret is kept when left out and required again with a new issuer', async (t) => {
  const id = (await server.call('GET', base)).body.data.oidc_providers.find(
    (p: { name: string }) => p.name === 'keycloak',
  ).id;
  const sealed = async () =>
    (
      await sql<{ s: string }>(
        server.db.url,
        'select client_secret_sealed as s from oidc_provider where id = $1',
        [id],
      )
    )[0]!.s;
  const before = await sealed();
  const kept = await server.call('PUT', `${base}/${id}`, { body: { api_scopes: 'pier:api' } });
  t.equal(kept.status, 200);
  t.equal(await sealed(), before, 'secret kept');

  const moved = await server.call('PUT', `${base}/${id}`, {
    body: { issuer_url: 'https://new.example.com' },
  });
  t.equal(moved.status, 400);
  t.same(moved.body.error.details, { client_secret: 'Send the client secret again when issuer_url changes' });
  const movedWith = await server.call('PUT', `${base}/${id}`, {
    body: { issuer_url: 'https://new.example.com', client_secret: 'another-secret' },
  });
  t.equal(movedWith.status, 200);
  t.equal(movedWith.body.data.issuer_url, 'https://new.example.com');
  t.not(await sealed(), before);

  const rename = await server.call('PUT', `${base}/${id}`, { body: { name: 'other' } });
  t.equal(rename.status, 400);
  t.ok(rename.body.error.details.name);
  const wrongId = await server.call('PUT', `${base}/${id}`, { body: { id: id + 100 } });
  t.equal(wrongId.status, 400);
  t.ok(wrongId.body.error.details.id);
  const noOpenid = await server.call('PUT', `${base}/${id}`, { body: { scopes: 'email' } });
  t.same(noOpenid.body.error.details, { scopes: 'Must include openid when sign_in is on' });
  t.equal((await server.call('GET', `${base}/999999`)).status, 404);
});

t.test('audit rows of kind oidc-provider mark the secret without its value', async (t) => {
  const made = await server.call('POST', base, {
    body: { ...valid, name: 'audited', issuer_url: 'https://audited.example.com' },
  });
  const id = made.body.data.id;
  await server.call('PUT', `${base}/${id}`, { body: { client_secret: 'rotated-secret', enabled: false } });
  await server.call('PUT', `${base}/${id}`, { body: { client_secret: 'rotated-secret' } });
  t.equal((await server.call('DELETE', `${base}/${id}`)).status, 204);
  t.equal((await server.call('GET', `${base}/${id}`)).status, 404);
  const audit = await server.call('GET', `/api/v1/audit?kind=oidc-provider&record_id=${id}`);
  const events = [...audit.body.data.events].reverse();
  t.same(
    events.map((e: { action: string }) => e.action),
    ['create', 'update', 'delete'],
    'the unchanged secret wrote nothing',
  );
  t.equal(events[0].actor, 'sa:tester');
  t.same(
    events[0].changes.find((c: { field: string }) => c.field === 'client_secret'),
    {
      field: 'client_secret',
      secret: true,
    },
  );
  t.same(events[1].changes, [
    { field: 'enabled', old: true, new: false },
    { field: 'client_secret', secret: true },
  ]);
  const raw = JSON.stringify(events);
  t.notMatch(raw, secret);
  t.notMatch(raw, 'rotated-secret');
  t.notMatch(raw, 'v1:', 'not even sealed');
});
