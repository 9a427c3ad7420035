// Covers service accounts (docs/api/service-accounts.md) and API tokens (docs/api/api-tokens.md): rules, conflicts, the token
// shown once and stored as a hash only, list order and validation of every field.
import t from 'tap';
import { sql } from '../helpers/database.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);
const accounts = '/api/v1/service-accounts';
const tokens = '/api/v1/api-tokens';

t.test('service accounts: create with defaults, list by name, immutable name and kind', async (t) => {
  const made = await server.call('POST', accounts, { body: { name: 'zeta', description: 'nightly sync' } });
  t.equal(made.status, 201);
  t.match(made.body.data, {
    name: 'zeta',
    description: 'nightly sync',
    kind: 'local',
    enabled: true,
    oidc_issuer: '',
    oidc_subject: '',
    last_used_at: null,
  });
  await server.call('POST', accounts, { body: { name: 'alpha' } });
  const list = await server.call('GET', accounts);
  const names = list.body.data.service_accounts.map((a: { name: string }) => a.name);
  t.same(names, [...names].sort(), 'ordered by name');

  const dup = await server.call('POST', accounts, { body: { name: 'zeta' } });
  t.equal(dup.status, 409);
  t.equal(dup.body.error.code, 'CONFLICT');

  const id = made.body.data.id;
  const rename = await server.call('PUT', `${accounts}/${id}`, {
    body: { name: 'other', kind: 'federated' },
  });
  t.equal(rename.status, 400);
  t.same(rename.body.error.details, {
    name: 'Cannot change the name of a service account',
    kind: 'Cannot change the kind of a service account',
  });
  const same = await server.call('PUT', `${accounts}/${id}`, { body: { name: 'zeta', description: 'x' } });
  t.equal(same.status, 200, 'sending the unchanged name is fine');
  t.equal(same.body.data.description, 'x');
});

t.test('federated accounts need an identity, unique per issuer and subject', async (t) => {
  const missing = await server.call('POST', accounts, { body: { name: 'fed', kind: 'federated' } });
  t.equal(missing.status, 400);
  t.same(missing.body.error.details, {
    oidc_issuer: 'Required for a federated account',
    oidc_subject: 'Required for a federated account',
  });
  const http = await server.call('POST', accounts, {
    body: { name: 'fed', kind: 'federated', oidc_issuer: 'http://idp.example.com', oidc_subject: 'svc' },
  });
  t.same(http.body.error.details, { oidc_issuer: 'Must be an https URL (http only for localhost)' });
  const identity = {
    kind: 'federated',
    oidc_issuer: 'https://idp.example.com/realms/b2b',
    oidc_subject: 'svc-1',
  };
  const ok = await server.call('POST', accounts, { body: { name: 'fed', ...identity } });
  t.equal(ok.status, 201);
  const twin = await server.call('POST', accounts, { body: { name: 'fed2', ...identity } });
  t.equal(twin.status, 409);
  t.equal(twin.body.error.message, 'Service account fed has this identity');
  const local = await server.call('POST', accounts, { body: { name: 'loc', oidc_subject: 'x' } });
  t.same(local.body.error.details, { oidc_subject: 'Must be empty for a local account' });
  const token = await server.call('POST', tokens, { body: { service_account: 'fed', label: 'x' } });
  t.equal(token.status, 400);
  t.same(token.body.error.details, { service_account: 'No local service account named fed' });
});

t.test('a token is shown once, stored as a hash, and listed newest first', async (t) => {
  await server.call('POST', accounts, { body: { name: 'robot' } });
  const first = await server.call('POST', tokens, { body: { service_account: 'robot', label: 'first' } });
  const second = await server.call('POST', tokens, {
    body: { service_account: 'robot', label: 'second', expires_in_days: 365 },
  });
  t.equal(first.status, 201);
  const value = first.body.data.token as string;
  t.match(value, /^pier_[0-9A-Za-z]{44}$/);
  t.equal(first.body.data.public_id, value.slice(5, 17), 'public_id is the 12 characters after the prefix');
  t.equal(first.body.data.state, 'active');
  const days = (Date.parse(first.body.data.expires_at) - Date.parse(first.body.data.created_at)) / 86_400_000;
  t.ok(Math.abs(days - 90) < 0.01, 'expires in 90 days by default');

  const list = await server.call('GET', tokens);
  t.notOk(list.raw.includes(value), 'the list never carries the value');
  t.notOk(list.raw.includes('"token"'), 'nor a token field');
  const robots = list.body.data.api_tokens.filter(
    (x: { service_account: string }) => x.service_account === 'robot',
  );
  t.same(
    robots.map((x: { label: string }) => x.label),
    ['second', 'first'],
    'newest first',
  );
  t.equal(second.body.data.token === value, false);

  const stored = await sql<{ secret_hash: string }>(server.db.url, 'select * from api_token where id = $1', [
    first.body.data.id,
  ]);
  t.notOk(JSON.stringify(stored).includes(value.slice(17)), 'the secret part is not stored');
  t.equal(stored[0]!.secret_hash.length, 64);
  const audit = await sql(
    server.db.url,
    "select changes::text as c from audit_event where kind = 'api-token'",
  );
  t.notOk(
    audit.some((r) => (r.c as string).includes(value.slice(17))),
    'nor audited',
  );
  t.ok(
    audit.some((r) => (r.c as string).includes('"secret": true')),
    'the audit names the secret only',
  );
});

t.test('token fields are validated', async (t) => {
  const cases: [Record<string, unknown>, Record<string, string>][] = [
    [{ service_account: 'robot', label: '' }, { label: 'Must not be empty' }],
    [{ service_account: 'robot', label: 'x'.repeat(65) }, { label: 'Must be at most 64 characters' }],
    [{ service_account: 'robot', label: 'line\nbreak' }, { label: 'Must not contain control characters' }],
    [
      { service_account: 'robot', label: 'ok', expires_in_days: 0 },
      { expires_in_days: 'Must be at least 1' },
    ],
    [
      { service_account: 'robot', label: 'ok', expires_in_days: 366 },
      { expires_in_days: 'Must be at most 365' },
    ],
    [
      { service_account: 'robot', label: 'ok', expires_in_days: 1.5 },
      { expires_in_days: 'Must be a whole number' },
    ],
    [
      { service_account: 'nobody', label: 'ok' },
      { service_account: 'No local service account named nobody' },
    ],
    [{ label: 'ok' }, { service_account: 'Required' }],
    [{ service_account: 'robot', label: 'ok', token: 'mine' }, { token: 'Unknown property' }],
  ];
  const before = await sql(server.db.url, 'select count(*)::int as n from api_token');
  for (const [body, details] of cases) {
    const r = await server.call('POST', tokens, { body });
    t.equal(r.status, 400, JSON.stringify(body));
    t.same(
      r.body.error,
      { code: 'INVALID_INPUT', message: 'Validation failed', details },
      JSON.stringify(body),
    );
  }
  const after = await sql(server.db.url, 'select count(*)::int as n from api_token');
  t.equal(after[0]!.n, before[0]!.n, 'nothing was stored');
});
