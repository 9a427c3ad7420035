// Covers the first sign-in of a fresh install in a real browser: the sign-in page says that no user exists yet and how to make the first administrator with the real command, is styled by the web UI's style sheet, passes axe, and after `pier users passwd` (its service) the hint is gone and the administrator signs in.
import path from 'node:path';
import t from 'tap';
import { setUserPassword } from '../../api/resources/users/service.js';
import { freePort } from '../helpers/free-port.js';
import { startTestServer } from '../helpers/server.js';
import { launchChromium, noViolations, openPage, shots } from './chromium.js';

const port = await freePort();
const publicUrl = `http://127.0.0.1:${port}`;
const server = await startTestServer(t, {
  listen: true,
  env: { HTTP_PORT: String(port), PUBLIC_URL: publicUrl },
});
const system = { kind: 'developer' as const, actor: 'system' };
const browser = await launchChromium(t);

t.test('a fresh install says how to create the first administrator', async (t) => {
  for (const [width, height, name] of [
    [1280, 800, 'sign-in-first-run'],
    [390, 844, 'sign-in-first-run-390'],
  ] as const) {
    const { page, problems } = await openPage(browser, { width, height });
    await page.goto(`${publicUrl}/ui`);
    t.match(page.url(), /\/ui\/auth\/$/, 'the web UI sends a stranger to sign in');
    const heading = await page.textContent('#first-run-heading');
    t.equal(heading, 'No user exists yet');
    t.match(await page.textContent('.first-run pre'), 'npx pier users passwd NAME', 'the real command');
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    t.equal(background, 'rgb(247, 248, 250)', "styled by the web UI's style sheet (its --bg)");
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    t.ok(overflow <= 0, `${width} px: nothing wider than the screen (${overflow})`);
    await noViolations(t, page, `sign-in at ${width} px`);
    await page.screenshot({ path: path.join(shots, `${name}.png`) });
    t.same(problems, [], 'no console errors (a CSP violation would be one)');
    await page.context().close();
  }
});

t.test('once an administrator exists, the hint is gone and they sign in', async (t) => {
  await setUserPassword(server.ctx, system, 'root', 'correct horse battery staple');
  const { page } = await openPage(browser);
  await page.goto(`${publicUrl}/ui/auth/`);
  t.equal(await page.$('#first-run-heading'), null, 'no first-run hint');
  await page.fill('#sign-in-name', 'root');
  await page.fill('#sign-in-password', 'correct horse battery staple');
  await page.click('text=Sign in with a password');
  await page.waitForSelector('#signed-in');
  t.match(await page.textContent('#signed-in'), /Signed in as\s+root/);
  await page.context().close();
});
