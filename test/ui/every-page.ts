/**
 * The pages of the web UI for the every-page tests (every-page-*.test.ts): a server with
 * something on every kind of page, and the pages found by following the links from the
 * dashboard, one per address shape (/ui/partners/7 standing for every partner).
 */
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Test } from 'tap';
import { must, parkedWriter, parties, tempDir, upload } from '../helpers/flow.js';
import { makeFixtures } from '../helpers/certificates.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { uploadCertificate } from '../helpers/upload.js';
import { launchChromium } from './chromium.js';

export interface EveryPage {
  server: TestServer;
  base: string;
  browser: Browser;
  partnerId: number;
}

/** One address per shape: ids and message UUIDs stand for any. */
export function shapeOf(url: string): string {
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

export async function everyPage(t: Test): Promise<EveryPage> {
  const server = await startTestServer(t, { developerBuild: true, listen: true, runtime: { timers: false } });
  const base = server.url!;
  const dir = await tempDir(t);
  await parties(server);

  // Something on every kind of page: a certificate, both profiles, an instance of each type, a route, a message.
  const fixtures = makeFixtures(t);
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
  await parkedWriter(server, 'parked', path.join(dir, 'out'));
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

  const browser = await launchChromium(t);
  return { server, base, browser, partnerId };
}

/**
 * Visits every page once, from the dashboard along its links, running the check on each as it
 * is reached (one page load per page, so a slow machine still finishes); the pages visited.
 */
export async function visitEveryPage(
  page: Page,
  base: string,
  check: (url: string, status: number | undefined) => Promise<void>,
): Promise<string[]> {
  const seen = new Map<string, string>();
  const queue = ['/ui'];
  while (queue.length > 0 && seen.size < 80) {
    const url = queue.shift()!;
    const shape = shapeOf(url);
    if (seen.has(shape)) continue;
    seen.set(shape, url);
    const answer = await page.goto(`${base}${url}`);
    await page.waitForSelector('main h1');
    await check(url, answer?.status());
    const links = await page.$$eval('a[href^="/ui"]', (as) => as.map((a) => a.getAttribute('href')!));
    for (const link of links) {
      const clean = link.split('#')[0]!;
      if (notPages.some((p) => p.test(clean))) continue;
      if (!seen.has(shapeOf(clean))) queue.push(clean);
    }
  }
  return [...seen.values()];
}

/** The pages an operator uses most, which the links must lead to. */
export function expectedPages(partnerId: number): string[] {
  return [
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
  ];
}

/** Asserts that each of `expectedPages` is, by its shape, among the `visited` pages. */
export function expectedAmong(t: Test, visited: string[], partnerId: number): void {
  for (const expected of expectedPages(partnerId))
    t.ok(
      visited.some((p) => shapeOf(p) === shapeOf(expected)),
      `${expected} is among the ${visited.length} pages`,
    );
}
