// Covers configuration files in a real browser (Debian chromium + playwright-core): Export all and
// Export one partner download the YAML the API makes, as does the partner page's own Export button, and Import shows the plan of a pasted file
// (nothing changed yet), then applies it with the second button, which the plan page alone offers.
import { readFile } from 'node:fs/promises';
import t, { type Test } from 'tap';
import type { Page } from 'playwright-core';
import { parse, stringify } from 'yaml';
import { startTestServer } from '../helpers/server.js';
import { launchChromium, noSeriousViolations, openPage, textOf } from './chromium.js';

const server = await startTestServer(t, { developerBuild: true, listen: true });
for (const name of ['acme', 'globex']) {
  const made = await server.call('POST', '/api/v1/partners', { body: { name } });
  if (made.status !== 201) throw new Error(made.raw);
}
const browser = await launchChromium(t);

/** Clicking `control` downloads the file of partner globex alone. */
async function exportsGlobex(t: Test, page: Page, control: string): Promise<void> {
  const one = page.waitForEvent('download');
  await page.click(control);
  const download = await one;
  t.equal(download.suggestedFilename(), 'pier-globex.yaml');
  t.same(
    parse(await readFile((await download.path())!, 'utf8')).partners.map((p: { name: string }) => p.name),
    ['globex'],
  );
}

t.test('export all and one partner', async (t) => {
  const { page, problems } = await openPage(browser);
  await page.goto(`${server.url}/ui/config`);
  await noSeriousViolations(t, page, 'export and import page');
  const all = page.waitForEvent('download');
  await page.click('a:has-text("Export all")');
  const file = parse(await readFile((await (await all).path())!, 'utf8'));
  t.same(
    file.partners.map((p: { name: string }) => p.name),
    ['acme', 'globex'],
  );
  await page.selectOption('#export-partner', 'globex');
  await exportsGlobex(t, page, 'button:has-text("Export partner")');
  t.same(problems, [], 'no console error');
});

t.test("a partner's page exports that partner", async (t) => {
  const { page, problems } = await openPage(browser);
  const globex = (await server.call('GET', '/api/v1/partners')).body.data.partners.find(
    (p: { name: string }) => p.name === 'globex',
  );
  await page.goto(`${server.url}/ui/partners/${globex.id}`);
  await exportsGlobex(t, page, 'a:has-text("Export this partner")');
  t.same(problems, [], 'no console error');
});

t.test('import: the plan first, nothing applied until the second button', async (t) => {
  const file = (await server.call('GET', '/api/v1/config')).body.data;
  file.partners[0].display_name = 'ACME Corporation';
  file.partners.push({ name: 'initech', display_name: 'Initech' });
  const { page, problems } = await openPage(browser);
  await page.goto(`${server.url}/ui/config`);
  t.equal(await page.locator('button:has-text("Apply these changes")').count(), 0, 'no apply before a plan');
  await page.fill('#document', stringify(file));
  await page.click('button:has-text("Show the plan")');
  const plan = await textOf(page, 'table.plan');
  t.match(plan, /Update partners acme display_name "acme" "ACME Corporation"/);
  t.match(plan, /Create partners initech/);
  const partners = async () =>
    (await server.call('GET', '/api/v1/partners')).body.data.partners.map((p: { name: string }) => p.name);
  t.same(await partners(), ['acme', 'globex'], 'the plan changed nothing');
  await noSeriousViolations(t, page, 'the plan');

  await page.click('button:has-text("Apply these changes")');
  await page.waitForSelector('text=Applied: 2 record(s) changed.');
  t.same(await partners(), ['acme', 'globex', 'initech']);
  t.equal(await page.locator('button:has-text("Apply these changes")').count(), 0, 'applied once');

  await page.fill('#document', 'pier_config: 1\npartners:\n  - name: Bad Name\n');
  await page.click('button:has-text("Show the plan")');
  t.match(await textOf(page, '[role=alert], .notice, .alert'), /partners\[0\]\.name/);
  t.same(
    problems.filter((p) => !/status of 400/.test(p)),
    [],
    'no console error',
  );
});
