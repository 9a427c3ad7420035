// Covers every page of the web UI in a real browser, found by following the links from the dashboard (one page per address shape, /ui/partners/7 standing for every partner): axe reports no violation of any impact, and at 390 px wide nothing is wider than the screen, in the light and the dark theme.
import path from 'node:path';
import t from 'tap';
import { must, parties, tempDir, upload } from '../helpers/flow.js';
import { makeFixtures } from '../helpers/certificates.js';
import { startTestServer } from '../helpers/server.js';
import { uploadCertificate } from '../helpers/upload.js';
import { launchChromium, noViolations, openPage } from './chromium.js';

const server = await startTestServer(t, { developerBuild: true, listen: true, runtime: { timers: false } });
const base = server.url!;
const dir = await tempDir(t);
await parties(server);

// Something on every kind of page: a certificate, both profiles, an instance of each type, a route, a message.
const fixtures = makeFixtures();
t.teardown(() => fixtures.remove());
fixtures.selfSigned('acme', '/CN=acme-as2/O=Acme');
const certificate = await uploadCertificate(server, {
  certificate: fixtures.read('acme.crt'),
  private_key: fixtures.read('acme.key'),
  description: 'Acme signing',
});
if (certificate.status !== 201) throw new Error(`certificate: ${certificate.raw}`);
const certificateId = certificate.body.data.id as number;
const organizations = await server.call('GET', '/api/v1/organizations');
const partners = await server.call('GET', '/api/v1/partners');
const orgId = organizations.body.data.organizations[0].id as number;
const partnerId = partners.body.data.partners[0].id as number;
await must(server, '/as2/local-profiles', {
  local_organization_id: orgId,
  as2id: 'ACME',
  signing_certificate_id: certificateId,
});
await must(server, '/as2/remote-profiles', {
  business_partner_id: partnerId,
  as2id: 'GLOBEX',
  endpoint: 'https://globex.example/as2',
  partner_certificate_id: certificateId,
});
await must(server, '/plugins/configs?type=file-writer', {
  name: 'parked',
  directory: path.join(dir, 'out'),
  enabled: false,
});
await must(server, '/plugins/configs?type=notification-webhook', {
  name: 'ops-hook',
  url: 'https://hooks.example/pier',
  enabled: false,
});
await must(server, '/oidc-providers', {
  name: 'corp',
  issuer_url: 'https://idp.corp.example',
  client_id: 'pier',
  client_secret: 'secret',
});
await must(server, '/service-accounts', { name: 'erp' });
await must(server, '/api-tokens', { service_account: 'erp', label: 'laptop' });
const made = await upload(
  server,
  { from: 'acme', to: 'globex', target: 'parked' },
  { name: 'invoice-4711.edi', content: "UNB+UNOC:3+ACME+GLOBEX'\n" },
);
if (made.status !== 201) throw new Error(`message: ${made.raw}`);

/** One address per shape: ids and message UUIDs stand for any. */
function shapeOf(url: string): string {
  return url
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, ':uuid')
    .replace(/\/\d+(?=\/|$|\?)/g, '/:id')
    .replace(/\?.*$/, '');
}

/** Links that are not pages: downloads, the event stream, signing out, fragments for htmx. */
const notPages = [
  /\/download/,
  /\/payload/,
  /\/events$/,
  /\/auth\//,
  /\/assets\//,
  /\/dashboard\//,
  /\.pem$|\.der$/,
];

const browser = await launchChromium(t);

async function crawl(): Promise<string[]> {
  const { page } = await openPage(browser);
  const seen = new Map<string, string>();
  const queue = ['/ui'];
  while (queue.length > 0 && seen.size < 80) {
    const url = queue.shift()!;
    const shape = shapeOf(url);
    if (seen.has(shape)) continue;
    seen.set(shape, url);
    await page.goto(`${base}${url}`);
    const links = await page.$$eval('a[href^="/ui"]', (as) => as.map((a) => a.getAttribute('href')!));
    for (const link of links) {
      const clean = link.split('#')[0]!;
      if (notPages.some((p) => p.test(clean))) continue;
      if (!seen.has(shapeOf(clean))) queue.push(clean);
    }
  }
  await page.context().close();
  return [...seen.values()];
}

const pages = await crawl();

t.test('the crawl found the pages an operator uses', async (t) => {
  for (const expected of [
    '/ui',
    '/ui/messages',
    '/ui/partners',
    `/ui/partners/${partnerId}/profile`,
    '/ui/instances',
    '/ui/instances/new/notification-webhook',
    '/ui/instances/notification-webhook/ops-hook',
    '/ui/settings',
    '/ui/routes',
    '/ui/notifications',
  ])
    t.ok(
      pages.some((p) => shapeOf(p) === shapeOf(expected)),
      `${expected} is among the ${pages.length} pages`,
    );
});

for (const scheme of ['light', 'dark'] as const) {
  t.test(`every page passes axe with no violation (${scheme})`, async (t) => {
    const { page, problems } = await openPage(browser, { colorScheme: scheme });
    for (const url of pages) {
      const answer = await page.goto(`${base}${url}`);
      t.equal(answer?.status(), 200, `${url} answers 200`);
      await page.waitForSelector('main h1');
      await noViolations(t, page, url);
    }
    t.same(problems, [], 'no console errors (a CSP violation would be one)');
    await page.context().close();
  });
}

t.test('every page is usable at 390 px: nothing wider than the screen', async (t) => {
  const { page } = await openPage(browser, { width: 390, height: 844 });
  for (const url of pages) {
    await page.goto(`${base}${url}`);
    await page.waitForSelector('main h1');
    const wide = await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const over = document.documentElement.scrollWidth - width;
      // What sticks out, to say where to look when it fails.
      const culprits = [...document.querySelectorAll('main *')]
        .filter((e) => e.getBoundingClientRect().right > width + 1)
        .filter((e) => !e.closest('.table-wrap'))
        .slice(0, 3)
        .map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}.${[...e.classList].join('.')}`);
      return { over, culprits };
    });
    t.ok(
      wide.over <= 1,
      `${url}: no sideways scrolling at 390 px (${wide.over} px over; ${wide.culprits.join(', ')})`,
    );
  }
  await page.context().close();
});
