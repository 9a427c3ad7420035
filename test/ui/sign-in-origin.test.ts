// Covers signing in by an address other than localhost: without PUBLIC_URL
// the browser's own address (the request's Host) is the server's, so an operator who opens the
// UI by 127.0.0.1 signs in, while a form posted from another site is still refused; with
// PUBLIC_URL set to another address, the sign-in page says which address to use and a sign-in
// sent from elsewhere is refused with that address named.
import t from 'tap';
import { setUserPassword } from '../../api/resources/users/service.js';
import { freePort } from '../helpers/free-port.js';
import { startTestServer } from '../helpers/server.js';
import { launchChromium, openPage } from './chromium.js';

const system = { kind: 'developer' as const, actor: 'system' };
const password = 'correct horse battery staple';
const browser = await launchChromium(t);

t.test('without PUBLIC_URL, the address the browser used is the server’s', async (t) => {
  const port = await freePort();
  const server = await startTestServer(t, { listen: true, env: { HTTP_PORT: String(port) } });
  t.equal(server.ctx.options.publicUrlGiven, false, 'PUBLIC_URL is not set');
  await setUserPassword(server.ctx, system, 'root', password);
  // Not localhost, which the server would guess for itself.
  const address = `http://127.0.0.1:${port}`;
  const { page } = await openPage(browser);
  await page.goto(`${address}/ui/auth/`);
  t.equal(await page.$('#address-to-use'), null, 'no other address is named');
  await page.fill('#sign-in-name', 'root');
  await page.fill('#sign-in-password', password);
  await page.click('text=Sign in with a password');
  await page.waitForSelector('#signed-in');
  t.match(await page.textContent('#signed-in'), /Signed in as\s+root/);
  await page.context().close();

  // A form posted from another site is still refused, and nobody is signed in by it.
  const forged = await fetch(`${address}/ui/auth/local`, {
    method: 'POST',
    headers: { origin: 'http://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ name: 'root', password }),
    redirect: 'manual',
  });
  t.equal(forged.status, 403);
  t.match(await forged.text(), 'Wrong origin: the form was sent from another site.');
  t.notOk(forged.headers.get('set-cookie')?.includes('pier_session'), 'no session cookie');
});

t.test('with PUBLIC_URL set to another address, the page names the one to use', async (t) => {
  const port = await freePort();
  const publicUrl = `http://localhost:${port}`;
  const server = await startTestServer(t, {
    listen: true,
    env: { HTTP_PORT: String(port), PUBLIC_URL: publicUrl },
  });
  await setUserPassword(server.ctx, system, 'root', password);
  const { page } = await openPage(browser);
  await page.goto(`http://127.0.0.1:${port}/ui/auth/`);
  t.match(
    await page.textContent('#address-to-use'),
    `This server's address is ${publicUrl} (PUBLIC_URL): sign in there`,
  );
  t.equal(await page.getAttribute('#address-to-use a', 'href'), `${publicUrl}/ui/auth/`);
  await page.fill('#sign-in-name', 'root');
  await page.fill('#sign-in-password', password);
  await page.click('text=Sign in with a password');
  await page.waitForSelector('[role=alert]');
  t.match(
    await page.textContent('[role=alert]'),
    `Wrong origin: this server's address is ${publicUrl} (PUBLIC_URL). Open ${publicUrl}/ui and sign in there.`,
  );
  // By the address PUBLIC_URL names, the notice is gone and the sign-in works.
  await page.goto(`${publicUrl}/ui/auth/`);
  t.equal(await page.$('#address-to-use'), null);
  await page.fill('#sign-in-name', 'root');
  await page.fill('#sign-in-password', password);
  await page.click('text=Sign in with a password');
  await page.waitForSelector('#signed-in');
  await page.context().close();
});
