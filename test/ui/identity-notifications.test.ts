// Covers the identity providers and notification log pages in a real browser (chromium + playwright-core): axe with no serious or critical violation, screenshots (test/ui/chromium.ts says where), a provider created from the form whose client secret is shown only as set, and the notification log's filters (a test notification shown on request, a bad filter refused with the API's message).
import path from 'node:path';
import t from 'tap';
import { must } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { launchChromium, noSeriousViolations, openPage, shots, textOf } from './chromium.js';

const server = await startTestServer(t, { developerBuild: true, listen: true });
const base = server.url!;
const provider = await must(server, '/oidc-providers', {
  name: 'corp-sso',
  display_name: 'Corporate sign-in',
  issuer_url: 'https://idp.corp.example/realms/b2b',
  client_id: 'pier',
  client_secret: 'browser-test-client-secret',
});
// A notification log row: a notifier's test notification, delivered to a receiver on loopback.
const hookReceiver = await startReceiver(t);
await must(server, '/plugins/configs?type=notification-webhook', {
  name: 'ops-hook',
  url: hookReceiver.url,
  enabled: false,
});
const notified = await server.call('POST', '/api/v1/plugins/configs/notification-webhook/ops-hook/test');
if (notified.status !== 200) throw new Error(`test notification: ${notified.raw}`);
const browser = await launchChromium(t);

t.test('the pages: accessible, no console error, screenshots at 1280 × 800', async (t) => {
  const { page, problems } = await openPage(browser);
  for (const [name, url] of [
    ['identity-providers', '/ui/oidc-providers'],
    ['identity-provider', `/ui/oidc-providers/${String(provider.body.data.id)}`],
    ['notifications', '/ui/notifications?include_tests=true'],
  ] as const) {
    const answer = await page.goto(`${base}${url}`);
    t.equal(answer?.status(), 200, `${name} answers 200`);
    await noSeriousViolations(t, page, name);
    await page.screenshot({ path: path.join(shots, `${name}.png`) });
  }
  t.notMatch(await page.content(), 'browser-test-client-secret');
  t.same(problems, [], 'no console errors (a CSP violation would be one)');
  await page.context().close();
});

t.test('identity providers: created from the form, the secret shown only as set', async (t) => {
  const { page } = await openPage(browser);
  await page.goto(`${base}/ui/oidc-providers`);
  t.match(await textOf(page, 'table'), 'https://idp.corp.example/realms/b2b', 'the list shows the issuer');
  await page.fill('#f-name', 'partner-idp');
  await page.fill('#f-issuer_url', 'https://idp.partner.example');
  await page.fill('#f-client_id', 'pier-ui');
  await page.click('button:has-text("Create identity provider")');
  await page.waitForSelector('#f-client_secret-error');
  const api = await server.call('POST', '/api/v1/oidc-providers', {
    body: { name: 'partner-idp', issuer_url: 'https://idp.partner.example', client_id: 'pier-ui' },
  });
  t.equal(await textOf(page, '#f-client_secret-error'), api.body.error.details.client_secret);
  await page.fill('#f-client_secret', 'typed-in-the-browser');
  await page.click('button:has-text("Create identity provider")');
  await page.waitForSelector('.alert-ok');
  t.match(await textOf(page, 'h1'), 'Identity provider partner-idp');
  t.match(await textOf(page, '.field:has(#f-client_secret) .secret-state'), 'set');
  t.equal(await page.inputValue('#f-client_secret'), '', 'the field is empty: typing replaces');
  t.notMatch(await page.content(), 'typed-in-the-browser', 'the secret is nowhere in the page');
  t.match(await textOf(page, '#redirect-uri'), /\/ui\/auth\/partner-idp\/callback$/);
  await page.context().close();
});

t.test('notification log: the test notification appears when the filter asks for it', async (t) => {
  const { page } = await openPage(browser);
  await page.goto(`${base}/ui/notifications`);
  t.match(await textOf(page, 'main'), 'No notifications match.');
  await page.selectOption('#f-include_tests', 'true');
  await page.click('button:has-text("Filter")');
  await page.waitForSelector('table');
  const row = await textOf(page, 'tbody tr');
  t.match(row, notified.body.data.summary);
  t.match(row, 'ops-hook (json)');
  t.match(row, 'delivered');
  await page.fill('#f-from', 'yesterday');
  await page.click('button:has-text("Filter")');
  await page.waitForSelector('#f-from-error');
  const api = await server.call('GET', '/api/v1/notifications?from=yesterday');
  t.equal(
    await textOf(page, '#f-from-error'),
    api.body.error.details.from,
    "the API's message beside the filter",
  );
  await page.context().close();
});
