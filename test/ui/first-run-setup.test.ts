// Covers creating the first administrator without a terminal, in a real browser: a fresh
// install's sign-in page offers /ui/setup; the setup code the server wrote to its data directory
// is asked for (a wrong one is refused and creates nobody; a typing mistake in the password is
// caught); the right one creates the administrator, signs them in, is audited, and stops working
// (the page and the code answer 410, the file is gone, nobody else is created).
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { launchChromium, noViolations, openPage } from './chromium.js';

const server = await startTestServer(t, { listen: true });
const base = server.url!;
const browser = await launchChromium(t);
const codeFile = path.join(server.dataDir, 'setup-code');
const password = 'correct horse battery staple';

const users = async () => {
  const rows = await server.ctx.orm.em
    .fork()
    .getConnection()
    .execute('select name, role from app_user order by name');
  return rows as { name: string; role: string }[];
};

t.test('a fresh install makes its first administrator in the browser', async (t) => {
  t.equal((await stat(codeFile)).mode & 0o777, 0o600, 'the code file is its owner’s alone');
  const code = (await readFile(codeFile, 'utf8')).trim();
  t.match(code, /^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);

  const { page, problems } = await openPage(browser);
  await page.goto(`${base}/ui`);
  await page.click('#first-run-setup');
  t.match(page.url(), /\/ui\/setup$/);
  t.match(await page.textContent('main'), codeFile, 'the page says where the code is');
  await noViolations(t, page, 'first-run setup');
  // Before the refusals below, whose 403 and 400 answers the browser reports as failed loads.
  t.same(problems, [], 'no console errors');

  await page.fill('#setup-code', 'AAAA-BBBB-CCCC-DDDD');
  await page.fill('#setup-name', 'admin');
  await page.fill('#setup-password', password);
  await page.fill('#setup-repeat', password);
  await page.click('text=Create the administrator and sign in');
  await page.waitForSelector('#setup-code-error');
  t.match(await page.textContent('#setup-code-error'), 'Not the setup code');
  t.equal(await page.inputValue('#setup-name'), 'admin', 'the name is kept');
  t.same(await users(), [], 'nobody was created');

  await page.fill('#setup-code', code.toLowerCase());
  await page.fill('#setup-password', password);
  await page.fill('#setup-repeat', `${password}!`);
  await page.click('text=Create the administrator and sign in');
  await page.waitForSelector('#setup-repeat-error');
  t.equal(await page.textContent('#setup-repeat-error'), 'Not the same password');
  t.same(await users(), []);

  await page.fill('#setup-code', code.toLowerCase());
  await page.fill('#setup-password', password);
  await page.fill('#setup-repeat', password);
  await page.click('text=Create the administrator and sign in');
  await page.waitForURL(`${base}/ui`);
  t.same(await users(), [{ name: 'admin', role: 'admin' }]);
  await page.context().close();

  const [created] = (await server.ctx.orm.em
    .fork()
    .getConnection()
    .execute(
      `select actor, action, record_name from audit_event where kind = 'user' order by id limit 1`,
    )) as {
    actor: string;
    action: string;
    record_name: string;
  }[];
  t.match(created, { actor: 'first-run setup', record_name: 'admin' }, 'the creation is audited');
});

t.test('once an administrator exists, the code and the page stop working', async (t) => {
  await t.rejects(stat(codeFile), { code: 'ENOENT' }, 'the code file is gone');
  const page = await fetch(`${base}/ui/setup`);
  t.equal(page.status, 410);
  t.match(await page.text(), 'An administrator exists already');
  const again = await fetch(`${base}/ui/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ code: 'anything', name: 'intruder', password, repeat: password }),
  });
  t.equal(again.status, 410);
  t.same(await users(), [{ name: 'admin', role: 'admin' }], 'nobody else');
  const signIn = await (await fetch(`${base}/ui/auth/`)).text();
  t.notMatch(signIn, 'first-run-setup', 'the sign-in page no longer offers it');
});
