// Covers the messages page's "Send a file by hand" form in a real browser: From, To and Target
// are picked from lists (the parties and the target instances), a blank Target sends to the one
// the routes name and the file is written there, and a refused submission comes back with the
// parties as they were picked and the API's words beside the field.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import t from 'tap';
import { fileFlow, must, tempDir } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { launchChromium, noSeriousViolations, openPage } from './chromium.js';

const server = await startTestServer(t, { developerBuild: true, listen: true });
const base = server.url!;
const dir = await tempDir(t);
await must(server, '/organizations', { name: 'acme' });
await must(server, '/partners', { name: 'shopco' });
await must(server, '/partners', { name: 'globex' });
await fileFlow(server, dir, { to: 'shopco' });
const browser = await launchChromium(t);
const document = path.join(dir, 'order-1.txt');
await writeFile(document, 'ORDER 1\n');

/** A select's options as [value, label] pairs. */
const optionsOf = (page: Page, name: string) =>
  page.$$eval(`select[name="${name}"] option`, (os) =>
    (os as HTMLOptionElement[]).map((o) => [o.value, o.textContent!.trim()]),
  );

t.test('the parties and the target are picked from lists; a blank target takes the route', async (t) => {
  const { page, problems } = await openPage(browser);
  await page.goto(`${base}/ui/messages`);
  t.same(await optionsOf(page, 'from'), [
    ['', 'choose a party'],
    ['acme', 'acme (organization)'],
    ['globex', 'globex (partner)'],
    ['shopco', 'shopco (partner)'],
  ]);
  t.same(await optionsOf(page, 'target'), [
    ['', 'the one the routes name'],
    ['out', 'out (file-writer)'],
  ]);
  await noSeriousViolations(t, page, 'messages with the send form');
  await page.selectOption('select[name="from"]', 'acme');
  await page.selectOption('select[name="to"]', 'shopco');
  await page.setInputFiles('input[name="file"]', document);
  await page.click('#send-heading ~ form button[type="submit"]');
  await page.waitForURL(/\/ui\/messages\/[0-9a-f-]{36}\?done=sent$/);
  const id = /messages\/([0-9a-f-]{36})/.exec(page.url())![1]!;
  const written = path.join(dir, 'out', 'acme', 'order-1.txt');
  await waitFor(
    async () => (await readFile(written, 'utf8').catch(() => '')) === 'ORDER 1\n',
    'the document written by the routed target',
  );
  const message = await server.call('GET', `/api/v1/messages/${id}`);
  t.equal(message.body.data.deliveries[0].target, 'out', 'delivered by the target the route names');
  t.same(problems, [], 'no console errors');
  await page.context().close();
});

t.test('a refusal keeps the parties as picked and says what is wrong', async (t) => {
  const { page } = await openPage(browser);
  await page.goto(`${base}/ui/messages`);
  await page.selectOption('select[name="from"]', 'globex');
  await page.selectOption('select[name="to"]', 'shopco');
  await page.setInputFiles('input[name="file"]', document);
  await page.click('#send-heading ~ form button[type="submit"]');
  await page.waitForSelector('#f-to-error');
  t.notMatch(page.url(), '_csrf', 'no token in the address bar');
  t.equal(await page.inputValue('select[name="from"]'), 'globex', 'From as it was picked');
  t.equal(await page.inputValue('select[name="to"]'), 'shopco', 'To as it was picked');
  t.match(
    await page.textContent('#send-heading ~ form'),
    /organization/,
    "the API's words about the parties",
  );
  await page.context().close();
});

t.test('an upload form needs this site’s cookie and Origin when it carries no token', async (t) => {
  const { page } = await openPage(browser);
  await page.goto(`${base}/ui/messages`);
  const cookie = (await page.context().cookies()).find((c) => c.name === 'pier_csrf')!;
  await page.context().close();
  const post = (headers: Record<string, string>) => {
    const form = new FormData();
    form.append('from', 'acme');
    form.append('to', 'shopco');
    form.append('file', new Blob(['ORDER 2\n']), 'order-2.txt');
    return fetch(`${base}/ui/messages/send`, { method: 'POST', headers, body: form, redirect: 'manual' });
  };
  const before = (await server.call('GET', '/api/v1/messages')).body.data.total;
  const forged = await post({ cookie: `pier_csrf=${cookie.value}`, origin: 'http://evil.example' });
  t.equal(forged.status, 403, 'another site is refused');
  const noOrigin = await post({ cookie: `pier_csrf=${cookie.value}` });
  t.equal(noOrigin.status, 403, 'without Origin the token is needed');
  const noCookie = await post({ origin: base });
  t.equal(noCookie.status, 403, 'without the cookie it is refused');
  t.equal((await server.call('GET', '/api/v1/messages')).body.data.total, before, 'nothing was sent');
  const own = await post({ cookie: `pier_csrf=${cookie.value}`, origin: base });
  t.equal(own.status, 303, "this site's own form is taken");
});
