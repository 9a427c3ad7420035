// Covers the web UI in a real browser (Debian chromium driven by playwright-core): the main pages answer with no CSP violation and fit a phone's width (axe checks every page in every-page-light/dark.test.ts), a form's refusal shows the API's messages, redeliver of a failed delivery (and its 409 in words), certificate import with a token, start/stop of an instance, the audit verify, keyboard use; and writes the screenshots (test/ui/chromium.ts says where).
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { sql } from '../helpers/database.js';
import { makeFixtures } from '../helpers/certificates.js';
import { must, parkedWriter, parties, tempDir, upload } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { launchChromium, openPage as openPageIn, shots, textOf as text } from './chromium.js';

await mkdir(shots, { recursive: true });

// The target is created disabled, so nothing claims the deliveries the test puts in place.
const server = await startTestServer(t, { developerBuild: true, listen: true, runtime: { timers: false } });
const base = server.url!;
const dir = await tempDir(t);
await parties(server);
await parkedWriter(server, 'parked', path.join(dir, 'out'));
await must(server, '/routes', {
  source_plugin: 'api',
  from: 'acme',
  to: 'globex',
  target_plugin: 'parked',
}).catch(() => undefined);
const made = await upload(
  server,
  { from: 'acme', to: 'globex', target: 'parked' },
  { name: 'invoice-4711.edi', content: "UNA:+.? '\nUNB+UNOC:3+ACME+GLOBEX'\n" },
);
if (made.status !== 201) throw new Error(`a message to look at: ${made.raw}`);
const message = made.body.data;
const deliveryId = message.deliveries[0].id as number;
await sql(
  server.db.url,
  `update delivery set state = 'failed', attempts = 3, last_error = 'Directory not writable', finished_at = now() where id = $1`,
  [deliveryId],
);
await sql(server.db.url, `update message set stage = 'settled', status = 'Error' where id = $1`, [
  message.id,
]);
const fixtures = makeFixtures(t);
fixtures.selfSigned('one', '/CN=globex-as2/O=Globex');
fixtures.selfSigned('two', '/CN=globex-backup/O=Globex');
const bundle = Buffer.concat([fixtures.read('one.crt'), fixtures.read('two.crt')]);
const stored = await (async () => {
  fixtures.selfSigned('acme', '/CN=acme-as2/O=Acme');
  const { uploadCertificate } = await import('../helpers/upload.js');
  return uploadCertificate(server, {
    certificate: fixtures.read('acme.crt'),
    private_key: fixtures.read('acme.key'),
    description: 'Acme signing',
  });
})();
if (stored.status !== 201) throw new Error(`certificate: ${stored.raw}`);
// Used by Acme's AS2 profile, so the certificate's page has a use to show.
await must(server, '/as2/local-profiles', {
  local_organization_id: 1,
  as2id: 'ACME',
  signing_certificate_id: stored.body.data.id,
});

const browser = await launchChromium(t);

const openPage = (width = 1280, height = 800, colorScheme: 'light' | 'dark' = 'light') =>
  openPageIn(browser, { width, height, colorScheme });

const pages: [string, string][] = [
  ['dashboard', '/ui'],
  ['messages', '/ui/messages'],
  ['message-detail', `/ui/messages/${message.id}`],
  ['partners', '/ui/partners'],
  ['partner', '/ui/partners/1'],
  ['partner-profile', '/ui/partners/1/profile'],
  ['organizations', '/ui/organizations'],
  ['wizard', '/ui/wizard'],
  ['certificates', '/ui/certificates'],
  ['certificate', `/ui/certificates/${String(stored.body.data.id)}`],
  ['routes', '/ui/routes'],
  ['instances', '/ui/instances'],
  ['instance-config', '/ui/instances/file-writer/parked'],
  ['audit', '/ui/audit'],
  ['settings', '/ui/settings'],
  ['service-accounts', '/ui/service-accounts'],
  ['api-tokens', '/ui/api-tokens'],
  ['users', '/ui/users'],
];

t.test('the main pages: no CSP violation, screenshot at 1280 × 800', async (t) => {
  const { page, problems } = await openPage();
  for (const [name, url] of pages) {
    const answer = await page.goto(`${base}${url}`);
    t.equal(answer?.status(), 200, `${name} answers 200`);
    await page.waitForSelector('main h1');
    if (name === 'dashboard') await page.waitForSelector('#chart canvas');
    await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: false });
  }
  t.same(problems, [], 'no console errors (a CSP violation would be one)');
  await page.context().close();
});

t.test('phone width and dark mode', async (t) => {
  const { page, problems } = await openPage(390, 844);
  for (const [name, url] of [
    ['dashboard', '/ui'],
    ['message-detail', `/ui/messages/${message.id}`],
  ] as const) {
    await page.goto(`${base}${url}`);
    await page.waitForSelector('main h1');
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    t.ok(overflow <= 1, `${name}: no sideways scrolling at 390 px`);
    await page.screenshot({ path: path.join(shots, `${name}-390.png`), fullPage: true });
  }
  await page.context().close();
  const dark = await openPage(1280, 800, 'dark');
  await dark.page.goto(`${base}/ui`);
  await dark.page.waitForSelector('#chart canvas');
  await dark.page.screenshot({ path: path.join(shots, 'dashboard-dark.png') });
  t.same([...problems, ...dark.problems], []);
  await dark.page.context().close();
});

t.test('keyboard only: skip link, then a form is filled and sent', async (t) => {
  const { page } = await openPage();
  await page.goto(`${base}/ui/organizations`);
  await page.keyboard.press('Tab');
  t.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
  await page.keyboard.press('Enter');
  await page.focus('#f-name');
  await page.keyboard.type('Bad Name');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#f-name-error');
  const api = await server.call('POST', '/api/v1/organizations', { body: { name: 'Bad Name' } });
  t.equal(
    await page.textContent('#f-name-error'),
    api.body.error.details.name,
    'the API message beside the field',
  );
  t.equal(await page.getAttribute('#f-name', 'aria-invalid'), 'true');
  await page.screenshot({ path: path.join(shots, 'form-refusal.png') });
  await page.context().close();
});

t.test('redeliver a failed delivery; a second redeliver is refused in words', async (t) => {
  const { page } = await openPage();
  await page.goto(`${base}/ui/messages/${message.id}`);
  await page.click('button:has-text("Redeliver")');
  await page.waitForSelector('.alert-ok');
  t.match(await text(page, '.alert-ok'), 'Delivery queued again.');
  t.match(await page.textContent('table'), 'queued');
  await page.click('button:has-text("Redeliver")');
  await page.waitForSelector('.alert-error');
  t.match(
    await text(page, '.alert-error'),
    /This delivery is queued; it can be delivered again only when it is .*failed.*\(409 NOT_REDELIVERABLE\)/,
  );
  await page.context().close();
});

t.test('certificate import with a token', async (t) => {
  const { page } = await openPage();
  await page.goto(`${base}/ui/certificates`);
  await page.setInputFiles('#f-certificate', {
    name: 'globex-bundle.pem',
    mimeType: 'application/x-pem-file',
    buffer: bundle,
  });
  await page.click('button:has-text("Upload")');
  await page.waitForSelector('h1:has-text("Choose certificates to import")');
  await page.screenshot({ path: path.join(shots, 'certificate-import.png') });
  await page.check('#pick-0');
  await page.fill('#desc-0', 'Globex AS2 2026');
  await page.click('button:has-text("Import selected")');
  await page.waitForSelector('.alert-ok');
  t.match(await text(page, '.alert-ok'), 'Imported 1 certificate(s).');
  const list = await server.call('GET', '/api/v1/certificates?q=Globex%20AS2%202026');
  t.equal(list.body.data.total, 1, 'stored with the description chosen');
  await page.context().close();
});

t.test('start and stop an instance', async (t) => {
  const { page } = await openPage();
  await page.goto(`${base}/ui/instances`);
  await page.click('button[aria-label="start file-writer/parked"]');
  await page.waitForSelector('.alert-ok');
  t.match(await text(page, '.alert-ok'), 'start file-writer/parked, now running');
  await page.click('button[aria-label="stop file-writer/parked"]');
  await page.waitForSelector('.alert-ok');
  t.match(await text(page, '.alert-ok'), 'stop file-writer/parked, now stopped');
  const services = await server.call('GET', '/api/v1/services');
  t.equal(services.body.data.find((s: { name: string }) => s.name === 'parked').status, 'stopped');
  await page.context().close();
});

t.test('audit verify', async (t) => {
  const { page } = await openPage();
  await page.goto(`${base}/ui/audit`);
  await page.click('button:has-text("Verify the audit chain")');
  await page.waitForSelector('#verify-result');
  const api = await server.call('POST', '/api/v1/audit/verify', { body: {} });
  t.match(
    await text(page, '#verify-result'),
    `The audit log verifies: ${api.body.data.events_checked} events checked`,
  );
  await page.context().close();
});
