// Covers roles (docs/api/authentication.md#roles, docs/identity.md): viewer reads only, operator
// changes the exchange but not who may get in, admin does everything; a forbidden operation is
// 403 INSUFFICIENT_ROLE naming both roles; role changes are audited as service-account events.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);

async function tokenWithRole(name: string, role: string): Promise<string> {
  const made = await server.call('POST', '/api/v1/service-accounts', { body: { name, role } });
  if (made.status !== 201) throw new Error(made.raw);
  const token = await server.call('POST', '/api/v1/api-tokens', {
    body: { service_account: name, label: 'x' },
  });
  return token.body.data.token as string;
}

const viewer = await tokenWithRole('watcher', 'viewer');
const operator = await tokenWithRole('ops', 'operator');

t.test('a viewer reads everything and changes nothing', async (t) => {
  for (const path of [
    '/api/v1/partners',
    '/api/v1/service-accounts',
    '/api/v1/oidc-providers',
    '/api/v1/audit',
  ]) {
    t.equal((await server.call('GET', path, { token: viewer })).status, 200, path);
  }
  const r = await server.call('POST', '/api/v1/partners', { token: viewer, body: { name: 'acme' } });
  t.equal(r.status, 403);
  t.same(r.body.error, {
    code: 'INSUFFICIENT_ROLE',
    message: 'This needs the role operator; sa:watcher has the role viewer',
    details: { role: 'viewer', required: 'operator' },
  });
  t.equal((await server.call('GET', '/api/v1/partners?q=acme')).body.data.total, 0, 'nothing written');
});

t.test('an operator changes partners but not identity, accounts, tokens or settings', async (t) => {
  t.equal(
    (await server.call('POST', '/api/v1/partners', { token: operator, body: { name: 'acme' } })).status,
    201,
  );
  const denied = [
    ['POST', '/api/v1/oidc-providers', { name: 'x', issuer_url: 'https://x.example.com', sign_in: false }],
    ['POST', '/api/v1/service-accounts', { name: 'sneaky', role: 'admin' }],
    ['POST', '/api/v1/api-tokens', { service_account: 'ops', label: 'more' }],
    ['PUT', '/api/v1/settings', { delivery_max_dispatches: 3 }],
  ] as const;
  for (const [method, path, body] of denied) {
    const r = await server.call(method, path, { token: operator, body });
    t.equal(r.status, 403, `${method} ${path}`);
    t.equal(r.body.error.code, 'INSUFFICIENT_ROLE');
    t.same(r.body.error.details, { role: 'operator', required: 'admin' });
  }
});

t.test('an admin changes roles; the change counts at once and is audited', async (t) => {
  const accounts = (await server.call('GET', '/api/v1/service-accounts')).body.data.service_accounts;
  const watcher = accounts.find((a: { name: string }) => a.name === 'watcher');
  t.equal(watcher.role, 'viewer');
  const up = await server.call('PUT', `/api/v1/service-accounts/${watcher.id}`, {
    body: { role: 'operator' },
  });
  t.equal(up.status, 200);
  t.equal(up.body.data.role, 'operator');
  const r = await server.call('POST', '/api/v1/partners', { token: viewer, body: { name: 'globex' } });
  t.equal(r.status, 201, 'the new role counts from the next request');
  const audit = await server.call(
    'GET',
    `/api/v1/audit?kind=service-account&record_id=${watcher.id}&action=update`,
  );
  t.same(audit.body.data.events[0].changes, [{ field: 'role', old: 'viewer', new: 'operator' }]);
  const bad = await server.call('PUT', `/api/v1/service-accounts/${watcher.id}`, { body: { role: 'root' } });
  t.equal(bad.status, 400);
  t.ok(bad.body.error.details.role);
});
