// Covers the partner tools in a real browser (Debian chromium + playwright-core) over real AS2 on loopback: the connection check shown step by step, and a test message sent from the profile page and followed on its message page until its receipt (MDN) arrives.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium } from 'playwright-core';
import t from 'tap';
import { browserAs2Loop } from '../helpers/as2.js';
import { startTestServer } from '../helpers/server.js';
import { shots } from './chromium.js';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!existsSync(chromiumPath)) {
  throw new Error(
    `${chromiumPath} is missing: apt-get install -y --no-install-recommends chromium (see .ci/run)`,
  );
}

const server = await startTestServer(t, { developerBuild: true, listen: true });
const { partner } = await browserAs2Loop(t, server);

const browser = await chromium.launch({
  executablePath: chromiumPath,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
});
t.teardown(() => browser.close());

t.test('check the connection, send a test message, follow it to its receipt', async (t) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  await page.goto(`${server.url}/ui/partners/${partner}/profile`);
  // The sender and the organization are picked from lists of what exists.
  await page.selectOption('#check-sender', 'out');
  await page.click('button:has-text("Check connection")');
  await page.waitForSelector('#check-result');
  const check = (await page.innerText('#check-result')).replace(/\s+/g, ' ');
  t.match(check, 'Connection check: ok');
  for (const step of ['certificates', 'resolve', 'connect', 'tls', 'http'])
    t.match(check, step, `step ${step} shown`);
  await page.locator('#check-result').screenshot({ path: path.join(shots, 'partner-check.png') });

  await page.selectOption('#test-sender', 'out');
  await page.selectOption('#test-organization', 's1');
  await page.click('button:has-text("Send a test message")');
  await page.waitForSelector('h1:has-text("Message")');
  const messageUrl = page.url();
  t.match(messageUrl, /\/ui\/messages\/[0-9a-f-]{36}$/);
  let history = '';
  for (let i = 0; i < 60 && !/mdn received/i.test(history); i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 1000));
    await page.goto(messageUrl);
    history = await page.innerText('main');
  }
  t.match(history, /mdn received/i, 'the receipt arrived and is in the history');
  t.match(history, 'Delivered');
  const result = await new AxeBuilder({ page }).analyze();
  t.same(
    result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id),
    [],
    'the message page with AS2 facts is accessible',
  );
  await page.screenshot({ path: path.join(shots, 'test-message.png'), fullPage: true });
  await context.close();
});
