// Covers the partner set-up wizard end to end between two `pier serve` processes (separate databases and ports on 127.0.0.1), driven in chromium: on each side, through the web UI only, the certificates are uploaded, the organization gets its AS2 profile, the wizard makes the partner and its profile (certificate picked from those stored), the AS2 receiver, sender and inbox instances and the route are created; then acme checks the connection, sends a test message and sees it delivered with its signed receipt without reloading, and globex's UI shows it received and its inbox holds the file.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { freePort } from '../helpers/as2.js';
import { makeFixtures, type Fixtures } from '../helpers/certificates.js';
import { createTestDatabase } from '../helpers/database.js';
import { tempDir } from '../helpers/flow.js';
import { spawnPier } from '../helpers/process.js';
import { waitFor } from '../helpers/wait.js';
import { launchChromium, noSeriousViolations, openPage, shots, textOf } from './chromium.js';

interface Side {
  name: string;
  as2id: string;
  url: string;
  receiverPort: number;
  inbox: string;
}

async function startSide(t: Test, name: string, as2id: string): Promise<Side> {
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const dataDir = await tempDir(t, `pier-${name}-`);
  const pier = await spawnPier(t, { databaseUrl: db.url, dataDir, cwd: dataDir });
  return { name, as2id, url: pier.url, receiverPort: await freePort(), inbox: path.join(dataDir, 'inbox') };
}

const fixtures: Fixtures = makeFixtures();
t.teardown(() => fixtures.remove());
const [acme, globex] = await Promise.all([startSide(t, 'acme', 'ACME'), startSide(t, 'globex', 'GLOBEX')]);
for (const side of [acme, globex]) fixtures.selfSigned(side.name, `/CN=${side.as2id}/O=${side.name}`);
const browser = await launchChromium(t);

/** Submits the form of the button and waits for the page it leads to. */
async function submit(page: Page, button: string): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.click(`button:has-text("${button}")`)]);
  const problems = await page.locator('.alert-error, p.error').allInnerTexts();
  if (problems.length > 0) throw new Error(`${button} at ${page.url()} was refused: ${problems.join('; ')}`);
}

async function uploadCertificate(page: Page, side: Side, owner: string, withKey: boolean): Promise<string> {
  await page.goto(`${side.url}/ui/certificates`);
  await page.setInputFiles('#f-certificate', {
    name: `${owner}.crt`,
    mimeType: 'application/x-pem-file',
    buffer: fixtures.read(`${owner}.crt`),
  });
  if (withKey) {
    await page.setInputFiles('#f-private_key', {
      name: `${owner}.key`,
      mimeType: 'application/x-pem-file',
      buffer: fixtures.read(`${owner}.key`),
    });
  }
  await page.fill('#f-description', `${owner} AS2`);
  await submit(page, 'Upload');
  return /\/ui\/certificates\/(\d+)/.exec(page.url())![1]!;
}

async function createInstance(page: Page, side: Side, type: string, fields: Record<string, string>) {
  await page.goto(`${side.url}/ui/instances/new/${type}`);
  for (const [name, value] of Object.entries(fields)) await page.fill(`#f-${name}`, value);
  await submit(page, 'Create');
}

/** Everything one side needs, through the UI; answers the partner's id. */
async function setUp(page: Page, side: Side, partner: Side): Promise<string> {
  const own = await uploadCertificate(page, side, side.name, true);
  const theirs = await uploadCertificate(page, side, partner.name, false);

  await page.goto(`${side.url}/ui/organizations`);
  await page.fill('#f-name', side.name);
  await submit(page, 'Create organization');
  await Promise.all([page.waitForNavigation(), page.click('a:has-text("Add an AS2 profile")')]);
  await page.fill('#f-as2id', side.as2id);
  await page.selectOption('#f-signing_certificate_id', own);
  await submit(page, 'Create profile');

  // The wizard: the partner, then its profile with the certificate picked from those stored.
  await page.goto(`${side.url}/ui/wizard`);
  await page.fill('#f-name', partner.name);
  await submit(page, 'Create partner and continue');
  const partnerId = new URL(page.url()).searchParams.get('partner')!;
  t.match(await textOf(page, '[aria-current="step"]'), 'Certificates', `${side.name}: the wizard moves on`);
  await Promise.all([
    page.waitForNavigation(),
    page.click(`a:has-text("Set up the AS2 profile of ${partner.name}")`),
  ]);
  await page.selectOption('#f-interop_preset', { index: 0 });
  await page.fill('#f-as2id', partner.as2id);
  await page.fill('#f-endpoint', `http://127.0.0.1:${partner.receiverPort}/as2`);
  await page.selectOption('#f-partner_certificate_id', theirs);
  await submit(page, 'Create profile');
  await page.goto(`${side.url}/ui/wizard?partner=${partnerId}`);
  t.match(
    await textOf(page, '[aria-current="step"]'),
    'Check connection',
    `${side.name}: the profile step is done`,
  );

  await createInstance(page, side, 'as2-receiver', {
    name: 'as2-in',
    host: '127.0.0.1',
    port: String(side.receiverPort),
    path: '/as2',
  });
  await createInstance(page, side, 'as2-sender', { name: 'as2-out' });
  await createInstance(page, side, 'file-writer', {
    name: 'inbox',
    directory: side.inbox,
    path_pattern: '{from}/{filename}',
  });
  await page.goto(`${side.url}/ui/routes`);
  await page.fill('#f-name', `from-${partner.name}`);
  await page.fill('#f-source_plugin', 'as2-in');
  await page.fill('#f-from', partner.name);
  await page.fill('#f-to', side.name);
  await page.fill('#f-target_plugin', 'inbox');
  await submit(page, 'Create route');
  return partnerId;
}

t.test('two piers set up through the UI exchange a test message and its receipt', async (t) => {
  const a = await openPage(browser);
  const b = await openPage(browser);
  const [toGlobex] = await Promise.all([setUp(a.page, acme, globex), setUp(b.page, globex, acme)]);

  // Both receivers run before acme checks the connection.
  await a.page.goto(`${acme.url}/ui/instances`);
  await b.page.goto(`${globex.url}/ui/instances`);
  for (const page of [a.page, b.page]) {
    t.match(await textOf(page, 'main'), /as2-receiver\/as2-in.*running/, 'the receiver runs');
  }

  await a.page.goto(`${acme.url}/ui/partners/${toGlobex}/profile`);
  await a.page.fill('#check-sender', 'as2-out');
  await a.page.click('button:has-text("Check connection")');
  await a.page.waitForSelector('#check-result');
  t.match(await textOf(a.page, '#check-result'), 'Connection check: ok', 'the connection check passes');

  await a.page.fill('#test-sender', 'as2-out');
  await a.page.fill('#test-organization', 'acme');
  await submit(a.page, 'Send a test message');
  t.match(a.page.url(), /\/ui\/messages\/[0-9a-f-]{36}$/, 'the test message opens');
  let navigations = 0;
  a.page.on('framenavigated', (frame) => {
    if (frame === a.page.mainFrame()) navigations++;
  });
  await a.page.waitForFunction(
    () => document.querySelector('#message-status')?.textContent?.includes('Status Delivered'),
    undefined,
    { timeout: 90_000 },
  );
  t.equal(navigations, 0, 'delivered and receipt shown without a reload');
  const detail = await textOf(a.page, '#live-message');
  t.match(detail, /mdn received/i, 'the receipt is in the history');
  t.match(detail, /processed/i, 'the receipt says processed');
  await noSeriousViolations(t, a.page, 'the delivered test message');
  await a.page.screenshot({ path: path.join(shots, 'two-piers-delivered.png'), fullPage: true });

  const arrived = await waitFor(
    async () => (await readdir(path.join(globex.inbox, 'acme')).catch(() => []))[0],
    'the test message is in globex’s inbox',
    60_000,
  );
  t.ok((await readFile(path.join(globex.inbox, 'acme', arrived))).length > 0, `globex wrote ${arrived}`);
  await b.page.goto(`${globex.url}/ui/messages?from=acme`);
  const row = await textOf(b.page, '#live-messages tbody tr');
  t.match(row, /Delivered.*inbound.*acme.*globex/, 'globex lists it received from acme and delivered');
  t.same([...a.problems, ...b.problems], [], 'no console errors');
  await Promise.all([a.page.context().close(), b.page.context().close()]);
});
