// Covers the server-side session API the web UI builds on (getSessionUser, requireRole) and the
// session rules without a browser: Secure behind https, idle and absolute timeouts, disabled
// users, sign-out, and the cookie refused on /api/v1.
import type { FastifyRequest } from 'fastify';
import t from 'tap';
import { setUserEnabled, setUserPassword } from '../../api/resources/users/service.js';
import { getSessionUser, requireRole } from '../../api/ui-session/session.js';
import { sql } from '../helpers/database.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t, { env: { PUBLIC_URL: 'https://pier.example.com' } });
const system = { kind: 'developer' as const, actor: 'system' };
await setUserPassword(server.ctx, system, 'root', 'correct horse battery staple');

async function signIn(): Promise<{ cookie: string; setCookie: string }> {
  const r = await server.app.inject({
    method: 'POST',
    url: '/ui/auth/local',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://pier.example.com' },
    payload: 'name=root&password=correct+horse+battery+staple',
  });
  if (r.statusCode !== 303) throw new Error(`sign-in failed: ${r.statusCode} ${r.body}`);
  const header = [r.headers['set-cookie']].flat().find((c) => c?.startsWith('pier_session='))!;
  return { cookie: header.split(';')[0]!, setCookie: header };
}

const requestWith = (cookie: string) => ({ headers: { cookie } }) as unknown as FastifyRequest;

t.test('a session names its user and role; requireRole refuses what the role does not reach', async (t) => {
  const { cookie, setCookie } = await signIn();
  t.match(setCookie, /; Path=\/; HttpOnly; SameSite=Lax; Secure$/, 'Secure behind https');
  t.same(await getSessionUser(server.ctx, requestWith(cookie)), { id: 1, name: 'root', role: 'admin' });
  t.same(await requireRole(server.ctx, requestWith(cookie), 'admin'), { id: 1, name: 'root', role: 'admin' });
  t.equal(await getSessionUser(server.ctx, requestWith('pier_session=made-up')), undefined);
  const refusal = async (role: 'viewer' | 'operator', cookie: string) =>
    requireRole(server.ctx, requestWith(cookie), role).then(
      () => undefined,
      (e: { status: number; code: string; message: string }) => ({
        status: e.status,
        code: e.code,
        message: e.message,
      }),
    );
  t.same(await refusal('viewer', ''), { status: 401, code: 'INVALID_TOKEN', message: 'Sign in first' });
  await sql(server.db.url, "update app_user set role = 'viewer' where name = 'root'");
  t.same(await refusal('operator', cookie), {
    status: 403,
    code: 'INSUFFICIENT_ROLE',
    message: 'This needs the role operator; root has the role viewer',
  });
  await sql(server.db.url, "update app_user set role = 'admin' where name = 'root'");

  const api = await server.call('GET', '/api/v1/partners', { token: null, headers: { cookie } });
  t.equal(api.status, 401, 'no credential on the API');
  t.equal(api.body.error.code, 'MISSING_AUTH_HEADER');
});

t.test('idle and absolute timeouts, disabling and sign-out end a session', async (t) => {
  const idle = await signIn();
  await sql(server.db.url, "update ui_session set last_seen_at = now() - interval '31 minutes'");
  t.equal(await getSessionUser(server.ctx, requestWith(idle.cookie)), undefined, 'idle for 31 minutes');

  const old = await signIn();
  await sql(server.db.url, "update ui_session set expires_at = now() - interval '1 second'");
  t.equal(await getSessionUser(server.ctx, requestWith(old.cookie)), undefined, '12 hours after sign-in');

  const live = await signIn();
  t.ok(await getSessionUser(server.ctx, requestWith(live.cookie)));
  await setUserEnabled(server.ctx, system, 'root', false);
  t.equal(await getSessionUser(server.ctx, requestWith(live.cookie)), undefined, 'disabled user');
  await setUserEnabled(server.ctx, system, 'root', true);
  t.ok(await getSessionUser(server.ctx, requestWith(live.cookie)), 'enabled again');

  const out = await server.app.inject({
    method: 'POST',
    url: '/ui/auth/logout',
    headers: { cookie: live.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: '',
  });
  t.equal(out.statusCode, 303);
  t.equal(out.headers.location, '/ui/auth/');
  t.equal(await getSessionUser(server.ctx, requestWith(live.cookie)), undefined, 'signed out');
  t.same(await sql(server.db.url, 'select id from ui_session'), []);
});
