// Covers authentication (docs/api/authentication.md): header errors, API token states (expired, revoked, disabled
// account), cache invalidation across two processes, last_used_at, and the developer build.
import t from 'tap';
import { readProcessOptions } from '../../api/process-options.js';
import { startServer } from '../../api/server.js';
import { sql } from '../helpers/database.js';
import { startTestServer } from '../helpers/server.js';
import { SharedClock } from '../../protocol/clock.js';

const day = 24 * 60 * 60 * 1000;
const clock = SharedClock.stoppedAt(Date.parse('2026-11-21T10:00:00Z'));
const server = await startTestServer(t, { clock });
const organizations = '/api/v1/organizations';

t.test('the Authorization header is required and must be Bearer', async (t) => {
  const none = await server.call('GET', organizations, { token: null });
  t.equal(none.status, 401);
  t.same(none.body, {
    data: null,
    error: { code: 'MISSING_AUTH_HEADER', message: 'Authorization header is required' },
  });
  for (const header of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer a b', 'pier_abc']) {
    const bad = await server.call('GET', organizations, { token: null, headers: { authorization: header } });
    t.equal(bad.status, 401, header);
    t.equal(bad.body.error.code, 'INVALID_AUTH_HEADER', header);
  }
});

t.test('unknown tokens are INVALID_TOKEN without saying why', async (t) => {
  const wellFormed = `pier_${'A'.repeat(12)}${'b'.repeat(32)}`;
  const wrongSecret = `${server.token.slice(0, 17)}${'x'.repeat(32)}`;
  for (const token of [wellFormed, 'pier_short', wrongSecret, 'eyJhbGciOiJIUzI1NiJ9.e30.abc']) {
    const r = await server.call('GET', organizations, { token });
    t.equal(r.status, 401, token);
    t.same(r.body.error, { code: 'INVALID_TOKEN', message: 'Invalid token' }, token);
  }
  const health = await server.call('GET', '/api/v1/health', { token: null });
  t.equal(health.status, 200, '/health is public');
  const doc = await server.call('GET', '/api/v1/openapi.yaml', { token: null });
  t.equal(doc.status, 401, '/openapi.yaml is not');
});

t.test('an expired token is TOKEN_EXPIRED and listed as expired', async (t) => {
  const made = await server.call('POST', '/api/v1/api-tokens', {
    body: { service_account: 'tester', label: 'short-lived', expires_in_days: 1 },
  });
  t.equal(made.status, 201);
  const token = made.body.data.token as string;
  t.equal((await server.call('GET', organizations, { token })).status, 200);
  clock.advance(2 * day);
  const expired = await server.call('GET', organizations, { token });
  t.equal(expired.status, 401);
  t.same(expired.body.error, { code: 'TOKEN_EXPIRED', message: 'Token has expired' });
  const list = await server.call('GET', '/api/v1/api-tokens?limit=500');
  const row = list.body.data.api_tokens.find((x: { id: number }) => x.id === made.body.data.id);
  t.equal(row.state, 'expired');
  clock.advance(-(2 * day));
});

t.test('a revoked token stops working at once, even while cached', async (t) => {
  const token = await server.newToken('revoker');
  t.equal((await server.call('GET', organizations, { token })).status, 200, 'warm in the cache');
  const list = await server.call('GET', '/api/v1/api-tokens');
  const mine = list.body.data.api_tokens.find(
    (x: { service_account: string }) => x.service_account === 'revoker',
  );
  t.equal(mine.state, 'active');
  t.ok(mine.last_used_at, 'last_used_at is set once used');
  const revoked = await server.call('DELETE', `/api/v1/api-tokens/${mine.id}`);
  t.equal(revoked.status, 204);
  const after = await server.call('GET', organizations, { token });
  t.equal(after.status, 401);
  t.equal(after.body.error.code, 'INVALID_TOKEN');
  const again = await server.call('GET', '/api/v1/api-tokens');
  const row = again.body.data.api_tokens.find((x: { id: number }) => x.id === mine.id);
  t.equal(row.state, 'revoked');
  t.ok(row.revoked_at);
  const missing = await server.call('DELETE', '/api/v1/api-tokens/999999');
  t.equal(missing.status, 404);
  t.equal(missing.body.error.message, 'API token not found');
});

t.test('a disabled account cannot authenticate; deleting it revokes its tokens', async (t) => {
  const token = await server.newToken('switch');
  const accounts = await server.call('GET', '/api/v1/service-accounts');
  const account = accounts.body.data.service_accounts.find((a: { name: string }) => a.name === 'switch');
  t.ok(account.last_used_at === null, 'not used yet');
  t.equal((await server.call('GET', organizations, { token })).status, 200);
  await server.call('PUT', `/api/v1/service-accounts/${account.id}`, { body: { enabled: false } });
  const disabled = await server.call('GET', organizations, { token });
  t.equal(disabled.status, 401);
  t.equal(disabled.body.error.code, 'INVALID_TOKEN');
  await server.call('PUT', `/api/v1/service-accounts/${account.id}`, { body: { enabled: true } });
  t.equal((await server.call('GET', organizations, { token })).status, 200, 'enabled again');
  const used = await server.call('GET', `/api/v1/service-accounts/${account.id}`);
  t.ok(used.body.data.last_used_at, 'last_used_at of the account is set');

  t.equal((await server.call('DELETE', `/api/v1/service-accounts/${account.id}`)).status, 204);
  t.equal((await server.call('GET', organizations, { token })).status, 401);
  const revokes = await sql(
    server.db.url,
    "select count(*)::int as n from audit_event where kind = 'api-token' and action = 'revoke' and record_name like 'switch/%'",
  );
  t.equal(revokes[0]!.n, 1, 'the revocation is audited');
});

t.test('API-token callers are recorded as sa:<name>', async (t) => {
  const token = await server.newToken('auditor');
  await server.call('POST', organizations, { body: { name: 'audited' }, token });
  const events = await server.call('GET', '/api/v1/audit?kind=organization&record_name=audited');
  t.equal(events.body.data.events[0].actor, 'sa:auditor');
});

t.test('revocation in one process reaches another process on the same database', async (t) => {
  const other = await startTestServer(t, { db: server.db });
  const token = await server.newToken('shared');
  t.equal((await other.call('GET', organizations, { token })).status, 200, 'warm in the other process');
  const list = await server.call('GET', '/api/v1/api-tokens');
  const id = list.body.data.api_tokens.find(
    (x: { service_account: string }) => x.service_account === 'shared',
  ).id;
  await server.call('DELETE', `/api/v1/api-tokens/${id}`);
  let status = 200;
  for (let i = 0; i < 50 && status === 200; i++) {
    await new Promise((r) => setTimeout(r, 20));
    status = (await other.call('GET', organizations, { token })).status;
  }
  t.equal(status, 401, 'refused within a second, long before the cache lifetime');
});

t.test('the developer build acts as developer without a header and checks given credentials', async (t) => {
  const dev = await startTestServer(t, { developerBuild: true });
  const made = await dev.call('POST', organizations, { body: { name: 'devorg' }, token: null });
  t.equal(made.status, 201);
  const events = await dev.call('GET', '/api/v1/audit?kind=organization', { token: null });
  t.equal(events.body.data.events[0].actor, 'developer');
  const bad = await dev.call('GET', organizations, { token: 'pier_nonsense' });
  t.equal(bad.status, 401);
  t.equal(bad.body.error.code, 'INVALID_TOKEN');
  const good = await dev.call('GET', organizations);
  t.equal(good.status, 200);
});

t.test('the developer build refuses to start in production', async (t) => {
  const options = readProcessOptions({ NODE_ENV: 'production', DATABASE_URL: server.db.url });
  await t.rejects(startServer({ options, developerBuild: true, logger: false, listen: false }), {
    message: 'The developer build (pier serve --dev) refuses to start with NODE_ENV=production',
  });
});

t.test('a process with another secret key refuses to start', async (t) => {
  const first = await startTestServer(t, { env: { PIER_SECRET_KEY: 'the-original-key' } });
  const again = await startTestServer(t, { db: first.db, env: { PIER_SECRET_KEY: 'the-original-key' } });
  t.ok(again.url === undefined && again.app, 'the same key starts');
  const options = readProcessOptions({ DATABASE_URL: first.db.url, PIER_SECRET_KEY: 'another-key' });
  await t.rejects(startServer({ options, developerBuild: false, logger: false, listen: false }), {
    message: /is not the one this database’s secrets were sealed with/,
  });
});
