// Covers web UI sign-in in a real browser (Debian chromium + playwright-core) against a real
// oidc-provider: authorization code + PKCE, the session cookie's attributes and rotation,
// sign-out, a forged state and a replayed code refused, unknown people refused, disabling a
// user ending the session, the local administrator password with its rate limit, and the
// session cookie refused as a credential on /api/v1.
import type { Page } from 'playwright-core';
import t from 'tap';
import { addUser, setUserEnabled, setUserPassword } from '../../api/resources/users/service.js';
import { sql } from '../helpers/database.js';
import { freePort } from '../helpers/free-port.js';
import { startTestIdp } from '../helpers/oidc.js';
import { startTestServer } from '../helpers/server.js';
import { launchChromium } from '../ui/chromium.js';

const idp = await startTestIdp(t);
const port = await freePort();
const publicUrl = `http://127.0.0.1:${port}`;
idp.setRedirectUris([`${publicUrl}/ui/auth/corp/callback`]);
const server = await startTestServer(t, {
  listen: true,
  env: { HTTP_PORT: String(port), PUBLIC_URL: publicUrl },
});
const system = { kind: 'developer' as const, actor: 'system' };
const made = await server.call('POST', '/api/v1/oidc-providers', {
  body: {
    name: 'corp',
    display_name: 'Corp SSO',
    issuer_url: idp.issuer,
    client_id: idp.ui.clientId,
    client_secret: idp.ui.clientSecret,
  },
});
if (made.status !== 201) throw new Error(`creating the provider failed: ${made.raw}`);
await addUser(server.ctx, system, { name: 'bob', oidc_issuer: idp.issuer, oidc_subject: 'bob-sub' });

const browser = await launchChromium(t);

/**
 * Starts a sign-in at the provider and goes through its pages (login form, consent) as far as
 * it shows them: a browser that is already signed in at the provider skips them.
 */
async function signInAtProvider(page: Page, login: string): Promise<void> {
  await page.goto(`${publicUrl}/ui/auth/corp/login`);
  for (let step = 0; step < 5; step++) {
    const url = new URL(page.url());
    if (url.origin === publicUrl) return;
    if ((await page.locator('input[name=login]').count()) > 0) {
      await page.fill('input[name=login]', login);
      await page.fill('input[name=password]', 'anything');
      await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    } else {
      await Promise.all([page.waitForNavigation(), page.locator('button', { hasText: 'Continue' }).click()]);
    }
  }
  throw new Error(`the provider did not send the browser back: ${page.url()}`);
}

async function sessionCookie(page: Page) {
  return (await page.context().cookies(publicUrl)).find((c) => c.name === 'pier_session');
}

t.test('sign in at the provider, land on /ui, the cookie is no API credential, sign out', async (t) => {
  const context = await browser.newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  let callbackUrl = '';
  page.on('request', (r) => {
    if (r.url().includes('/ui/auth/corp/callback')) callbackUrl = r.url();
  });
  await page.goto(`${publicUrl}/ui`);
  t.equal(new URL(page.url()).pathname, '/ui/auth/', 'not signed in: the sign-in page');
  t.equal(await page.textContent('#sign-in-corp'), 'Sign in with Corp SSO');
  await signInAtProvider(page, 'bob-sub');
  t.equal(new URL(page.url()).pathname, '/ui');
  t.equal(await page.textContent('#signed-in'), 'Signed in as bob (viewer)');
  const cookie = await sessionCookie(page);
  t.ok(cookie, 'a session cookie');
  t.match(cookie, { httpOnly: true, sameSite: 'Lax', secure: false, path: '/' });
  t.match(callbackUrl, /[?&]code=.*[&]?state=|[?&]state=.*code=/, 'the callback carried code and state');

  const api = await page.request.get(`${publicUrl}/api/v1/partners`);
  t.equal(api.status(), 401, 'the session cookie is no credential on /api/v1');
  t.equal((await api.json()).error.code, 'MISSING_AUTH_HEADER');

  // A replayed callback (the same code and state) is refused and starts no session.
  const sessions = await sql(server.db.url, 'select id from ui_session');
  const replay = await page.goto(callbackUrl);
  t.equal(replay?.status(), 400, 'replayed code refused');
  t.match(await page.textContent('body'), 'The sign-in could not be completed');
  t.same(await sql(server.db.url, 'select id from ui_session'), sessions);

  await page.goto(`${publicUrl}/ui`);
  await page.click('#sign-out');
  await page.waitForSelector('#sign-in-corp');
  t.equal(new URL(page.url()).pathname, '/ui/auth/');
  t.same(await sql(server.db.url, 'select id from ui_session'), [], 'the session is gone');
  await page.goto(`${publicUrl}/ui`);
  t.equal(new URL(page.url()).pathname, '/ui/auth/', 'signed out');
});

t.test('a forged state is refused', async (t) => {
  const context = await browser.newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  await page.goto(`${publicUrl}/ui/auth/corp/login`);
  await page.waitForSelector('input[name=login]');
  // The browser's pending sign-in now expects another state than the provider will send back.
  const pending = (await context.cookies(`${publicUrl}/ui/auth/`)).find((c) => c.name === 'pier_sign_in')!;
  const expected = JSON.parse(server.ctx.secrets.openText(decodeURIComponent(pending.value))) as object;
  const forged = server.ctx.secrets.seal(JSON.stringify({ ...expected, state: 'forged-state-value' }));
  await context.addCookies([{ ...pending, value: encodeURIComponent(forged) }]);
  await page.fill('input[name=login]', 'bob-sub');
  await page.fill('input[name=password]', 'anything');
  await page.click('button[type=submit]');
  await page.locator('button', { hasText: 'Continue' }).click();
  await page.waitForSelector('.error');
  t.equal(new URL(page.url()).pathname, '/ui/auth/corp/callback');
  t.match(await page.textContent('body'), 'The sign-in could not be completed');
  t.equal(await sessionCookie(page), undefined, 'no session');
});

t.test('the cookie is replaced at each sign-in; disabling the user ends the session', async (t) => {
  const context = await browser.newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  await signInAtProvider(page, 'bob-sub');
  const first = (await sessionCookie(page))!.value;
  await signInAtProvider(page, 'bob-sub');
  t.equal(await page.textContent('#signed-in'), 'Signed in as bob (viewer)');
  const second = (await sessionCookie(page))!.value;
  t.not(second, first, 'a new value');
  t.equal((await sql(server.db.url, 'select id from ui_session')).length, 1, 'the old session ended');

  await setUserEnabled(server.ctx, system, 'bob', false);
  await page.goto(`${publicUrl}/ui`);
  t.equal(new URL(page.url()).pathname, '/ui/auth/', 'a disabled user is signed out');
  await setUserEnabled(server.ctx, system, 'bob', true);
});

t.test('an unknown person is refused unless the provider provisions them', async (t) => {
  const context = await browser.newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  await signInAtProvider(page, 'carol-sub');
  t.match(await page.textContent('body'), 'pier does not know you');
  t.equal(await sessionCookie(page), undefined);

  await server.call('PUT', `/api/v1/oidc-providers/${made.body.data.id}`, {
    body: { auto_provision_role: 'viewer' },
  });
  await signInAtProvider(page, 'carol-sub');
  t.match(await page.textContent('#signed-in'), /^Signed in as corp-[0-9a-f]{10} \(viewer\)$/);
  const rows = await sql(server.db.url, "select role from app_user where oidc_subject = 'carol-sub'");
  t.same(rows, [{ role: 'viewer' }]);
});

t.test('the local administrator signs in with a password; failures are rate-limited', async (t) => {
  await setUserPassword(server.ctx, system, 'root', 'correct horse battery staple');
  const context = await browser.newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  await page.goto(`${publicUrl}/ui/auth/`);
  await page.fill('input[name=name]', 'root');
  await page.fill('input[name=password]', 'wrong password here');
  await page.click('text=Sign in with a password');
  await page.waitForSelector('.error');
  t.equal(await page.textContent('.error'), 'Wrong user name or password.');
  await page.fill('input[name=name]', 'root');
  await page.fill('input[name=password]', 'correct horse battery staple');
  await page.click('text=Sign in with a password');
  await page.waitForSelector('#signed-in');
  t.equal(await page.textContent('#signed-in'), 'Signed in as root (admin)');

  for (let i = 0; i < 5; i++) {
    const r = await page.request.post(`${publicUrl}/ui/auth/local`, {
      form: { name: 'bob', password: `nope-${i}` },
    });
    t.equal(r.status(), 401);
  }
  await setUserPassword(server.ctx, system, 'bob', 'bobs real password');
  const limited = await page.request.post(`${publicUrl}/ui/auth/local`, {
    form: { name: 'bob', password: 'bobs real password' },
  });
  t.equal(limited.status(), 429, 'even the right password waits after 5 failures');
  const foreign = await page.request.post(`${publicUrl}/ui/auth/local`, {
    form: { name: 'root', password: 'correct horse battery staple' },
    headers: { origin: 'https://evil.example' },
  });
  t.equal(foreign.status(), 403, 'a form posted from another site is refused');
});
