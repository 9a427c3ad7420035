// Covers the operator's task "onboard a partner end to end on two piers and exchange a file both ways" in chromium against two `pier serve` processes (own databases, loopback ports): on each side the wizard alone, with keys the test made uploaded as files, makes the organization, the partner, its AS2 profile with a preset, the receiver and sender, a route each way with their folders; each side checks the connection and sends a test message whose signed receipt appears on the wizard's page without a reload; a file dropped in each side's outbox arrives in the other's inbox. It counts page loads and form submissions per side (at most 6 submissions, no typed ids or JSON), asserts axe finds no violation on any wizard page and none needs sideways scrolling at 390 px, and takes the screenshots of each step that docs/ui/README.md shows.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { freePort } from '../helpers/as2.js';
import { makeFixtures } from '../helpers/certificates.js';
import { createTestDatabase } from '../helpers/database.js';
import { tempDir } from '../helpers/flow.js';
import { spawnPier } from '../helpers/process.js';
import { waitFor } from '../helpers/wait.js';
import { launchChromium, openPage, shots, textOf } from './chromium.js';

interface Side {
  name: string;
  as2id: string;
  url: string;
  receiverPort: number;
  /** Filled in from the wizard's routes step. */
  inbox: string;
  outbox: string;
  ids: string;
}

/** What the task cost one side. */
interface Effort {
  pageLoads: number;
  submissions: number;
}

async function startSide(t: Test, name: string, as2id: string): Promise<Side> {
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const dataDir = await tempDir(t, `pier-${name}-`);
  const pier = await spawnPier(t, { databaseUrl: db.url, dataDir, cwd: dataDir });
  return { name, as2id, url: pier.url, receiverPort: await freePort(), inbox: '', outbox: '', ids: '' };
}

// Two piers, their instances and a browser: about three minutes on a quiet 2-core machine, so
// the file gets more than test/run.ts's five-minute default for when the machine is busy.
t.setTimeout(600_000);

const fixtures = makeFixtures(t);
const [acme, globex] = await Promise.all([startSide(t, 'acme', 'ACME'), startSide(t, 'globex', 'GLOBEX')]);
for (const side of [acme, globex]) fixtures.selfSigned(side.name, `/CN=${side.as2id}/O=${side.name}`);
const browser: Browser = await launchChromium(t);

/** axe on the page as it is: every rule, every impact. */
async function noViolations(t: Test, page: Page, name: string): Promise<void> {
  const result = await new AxeBuilder({ page }).analyze();
  t.same(
    result.violations.map(
      (v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join('; ')}`,
    ),
    [],
    `${name}: axe reports no violation`,
  );
}

/** Counts the page loads of the main frame: every navigation the operator waits for. */
function counted(page: Page): Effort {
  const effort = { pageLoads: 0, submissions: 0 };
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) effort.pageLoads++;
  });
  return effort;
}

/** Submits with the button and waits for the page it leads to; a refusal fails the test. */
async function submit(page: Page, effort: Effort, button: string): Promise<void> {
  effort.submissions++;
  await Promise.all([page.waitForNavigation(), page.click(`button:has-text("${button}")`)]);
  const problems = await page.locator('.alert-error, p.error').allInnerTexts();
  if (problems.length > 0) throw new Error(`${button} at ${page.url()} was refused: ${problems.join('; ')}`);
}

async function follow(page: Page, link: string): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.click(`a:has-text("${link}")`)]);
}

/**
 * Each step page checked by axe and photographed, on acme's side (the README shows it; globex
 * sees the same pages with other names, and axe is the slowest part of the test).
 */
async function shot(t: Test, page: Page, side: Side, name: string): Promise<void> {
  if (side !== acme) return;
  await noViolations(t, page, `${side.name}: ${name}`);
  await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
}

/** Steps 1 to 5 on one side, from the wizard's start page to its check step. */
async function setUp(t: Test, page: Page, effort: Effort, side: Side, partner: Side): Promise<void> {
  await page.goto(`${side.url}/ui/wizard`);
  await follow(page, 'Start: your organization');

  await page.fill('#f-name', side.name);
  await page.fill('#f-display_name', `${side.name[0]!.toUpperCase()}${side.name.slice(1)} Corp`);
  await page.fill('#f-as2id', side.as2id);
  await page.check('#source-upload');
  await page.setInputFiles('#f-certificate', {
    name: `${side.name}.crt`,
    mimeType: 'application/x-pem-file',
    buffer: fixtures.read(`${side.name}.crt`),
  });
  await page.setInputFiles('#f-private_key', {
    name: `${side.name}.key`,
    mimeType: 'application/x-pem-file',
    buffer: fixtures.read(`${side.name}.key`),
  });
  await shot(t, page, side, 'wizard-1-organization');
  await submit(page, effort, 'Create organization and key');

  await page.fill('#f-name', partner.name);
  await page.check('#source-upload');
  await page.setInputFiles('#f-certificate', {
    name: `${partner.name}.crt`,
    mimeType: 'application/x-pem-file',
    buffer: fixtures.read(`${partner.name}.crt`),
  });
  await shot(t, page, side, 'wizard-2-partner');
  await submit(page, effort, 'Create partner');

  t.match(
    await textOf(page, '#f-partner_certificate_id option:checked'),
    `${partner.name} AS2 certificate`,
    `${side.name}: the partner's certificate is picked`,
  );
  await page.fill('#f-as2id', partner.as2id);
  await page.fill('#f-endpoint', `http://127.0.0.1:${partner.receiverPort}/as2`);
  await page.selectOption('#f-interop_preset', 'mendelson');
  await shot(t, page, side, 'wizard-3-profile');
  await submit(page, effort, 'Create AS2 profile');

  // The receiver's port is the one this side told its partner (the partner's profile above).
  await page.fill('#f-receiver_host', '127.0.0.1');
  await page.fill('#f-receiver_port', String(side.receiverPort));
  await shot(t, page, side, 'wizard-4-instances');
  await submit(page, effort, 'Use these instances');

  side.inbox = await page.inputValue('#f-inbox_directory');
  side.outbox = await page.inputValue('#f-outbox_directory');
  t.match(await textOf(page, '#verdict'), 'is not ready', `${side.name}: not ready before the routes`);
  await shot(t, page, side, 'wizard-5-routes');
  await submit(page, effort, 'Create the routes');
  side.ids = new URL(page.url()).search;
  t.match(
    await textOf(page, '#verdict'),
    `${partner.name} is ready`,
    `${side.name}: ready once the routes exist`,
  );
}

/** Step 6 on one side, one submission: the connection check, then a test message followed to its receipt. */
async function checkAndTest(t: Test, page: Page, effort: Effort, side: Side): Promise<void> {
  await submit(page, effort, 'Check and send a test message');
  t.match(
    await textOf(page, '#check-result'),
    'Connection check: ok',
    `${side.name}: the connection check passes`,
  );
  const loadsBefore = effort.pageLoads;
  await page.waitForSelector('#receipt', { timeout: 90_000 });
  t.equal(effort.pageLoads, loadsBefore, `${side.name}: the receipt is shown without a reload`);
  t.match(
    await textOf(page, '#live-test-message'),
    'Delivered',
    `${side.name}: the test message is delivered`,
  );
  await shot(t, page, side, 'wizard-6-check');
}

async function arrives(dir: string, name: string): Promise<Buffer> {
  const found = await waitFor(
    async () => ((await readdir(dir).catch(() => [])) as string[]).includes(name) || undefined,
    `${name} arrives in ${dir}`,
    90_000,
  );
  t.ok(found);
  return readFile(path.join(dir, name));
}

t.test('onboard a partner on two piers from the wizard alone, and exchange a file both ways', async (t) => {
  const a = await openPage(browser);
  const b = await openPage(browser);
  const effortA = counted(a.page);
  const effortB = counted(b.page);
  await Promise.all([setUp(t, a.page, effortA, acme, globex), setUp(t, b.page, effortB, globex, acme)]);
  await checkAndTest(t, a.page, effortA, acme);
  await checkAndTest(t, b.page, effortB, globex);

  const sentByAcme = Buffer.from("UNA:+.? 'UNB+UNOC:3+ACME+GLOBEX'\n");
  const sentByGlobex = Buffer.from('ISA*00*GLOBEX*ACME~\n');
  await mkdir(acme.outbox, { recursive: true });
  await writeFile(path.join(acme.outbox, 'invoice-0042.edi'), sentByAcme);
  await writeFile(path.join(globex.outbox, 'order-0007.x12'), sentByGlobex);
  t.same(
    await arrives(globex.inbox, 'invoice-0042.edi'),
    sentByAcme,
    'acme’s file is in globex’s inbox, byte for byte',
  );
  t.same(
    await arrives(acme.inbox, 'order-0007.x12'),
    sentByGlobex,
    'globex’s file is in acme’s inbox, byte for byte',
  );

  for (const [side, effort] of [
    [acme, effortA],
    [globex, effortB],
  ] as const) {
    t.ok(effort.submissions <= 6, `${side.name}: ${effort.submissions} form submissions (at most 6)`);
    t.comment(`${side.name}: ${effort.pageLoads} page loads, ${effort.submissions} form submissions`);
  }
  t.same([...a.problems, ...b.problems], [], 'no console errors (a CSP violation would be one)');
  await Promise.all([a.page.context().close(), b.page.context().close()]);
});

t.test('every wizard step at 390 px: no sideways scrolling, no axe violation', async (t) => {
  const { page, problems } = await openPage(browser, { width: 390, height: 844 });
  for (const step of ['', '/organization', '/partner', '/profile', '/instances', '/routes', '/check']) {
    await page.goto(`${acme.url}/ui/wizard${step}${acme.ids}`);
    await page.waitForSelector('main h1');
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    t.ok(overflow <= 1, `wizard${step || ' start'}: no sideways scrolling at 390 px (${overflow} px)`);
    await noViolations(t, page, `wizard${step || ' start'} at 390 px`);
    if (step === '/instances')
      await page.screenshot({ path: path.join(shots, 'wizard-4-instances-390.png'), fullPage: true });
  }
  t.same(problems, [], 'no console errors');
  await page.context().close();
});
