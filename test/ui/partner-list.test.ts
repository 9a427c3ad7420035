// Covers the partner list with standing and the one partner page in a real browser (Debian chromium + playwright-core) over real AS2 on loopback: last message each way, reachability from a delivered and a refused attempt, the soonest certificate expiry flagged within 30 days, and a partner's page with its standing, AS2 profile, certificates, routes and instances, each with its link; also GET /partner-status as a client reads it.
import path from 'node:path';
import t from 'tap';
import {
  agreement,
  freePort,
  partner,
  pierToItself,
  startSender,
  storeCertificate,
  syncSigned,
} from '../helpers/as2.js';
import { must, sendByHand, tempDir } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { launchChromium, noSeriousViolations, openPage, shots, textOf } from './chromium.js';

const server = await startTestServer(t, { developerBuild: true, listen: true });
const { f, cert, url } = await pierToItself(t, server, (fx) =>
  fx.selfSigned('soon', '/O=Soon/CN=soon.example', 10),
);
const soonCert = await storeCertificate(server, f, 'soon', false);
await startSender(server, 'out');
// s1 → r1 goes out through `out` and comes back in through `in` as sp1 → ro1.
await agreement(server, '1', url, cert, syncSigned);
const dir = await tempDir(t);
await must(server, '/plugins/configs?type=file-writer', {
  name: 'files',
  directory: path.join(dir, 'files'),
});
await must(server, '/routes', { source_plugin: 'in', from: 'sp1', to: 'ro1', target_plugin: 'files' });
// A partner nobody answers for, and one whose certificate ends in 10 days; neither was sent anything yet.
const closed = await freePort();
await partner(server, 'down', 'DOWN', `http://127.0.0.1:${closed}/as2`, cert, syncSigned);
const soonId = await partner(
  server,
  'soon',
  'SOON',
  url,
  soonCert,
  { ...syncSigned, encryption_algorithm: 'none' },
  {
    partner_certificate_id: soonCert,
    signature_certificate_ids: [soonCert, cert],
  },
);

const sent = await sendByHand(
  server,
  { from: 's1', to: 'r1', target: 'out' },
  { name: 'order.edi', content: 'UNB+ONE' },
);
const refused = await sendByHand(
  server,
  { from: 's1', to: 'down', target: 'out' },
  { name: 'lost.edi', content: 'UNB+TWO' },
);

const browser = await launchChromium(t);

t.test(
  'GET /partner-status: each partner’s last messages, reachability and soonest certificate',
  async (t) => {
    t.equal(sent.status, 'Delivered');
    t.equal(refused.status, 'Error');
    const answer = await server.call('GET', '/api/v1/partner-status?limit=50');
    t.equal(answer.status, 200);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- asserted field by field
    const byName: Record<string, any> = Object.fromEntries(
      (answer.body.data.partners as { name: string }[]).map((p) => [p.name, p]),
    );
    t.same(Object.keys(byName).sort(), ['down', 'r1', 'soon', 'sp1']);
    t.equal(answer.body.data.total, 4);
    t.match(byName.r1, {
      last_outbound: { message_id: sent.id, status: 'Delivered' },
      last_inbound: null,
      reachability: { state: 'reachable', target: 'out', detail: null, alert_standing: false },
      certificate: { id: cert, expiry: 'ok' },
    });
    t.match(byName.sp1, {
      last_inbound: { status: String },
      last_outbound: null,
      reachability: { state: 'untried' },
    });
    t.match(byName.down, {
      last_outbound: { message_id: refused.id, status: 'Error' },
      reachability: { state: 'unreachable', target: 'out', detail: /ECONNREFUSED|refused/i },
    });
    t.match(byName.soon, {
      last_inbound: null,
      last_outbound: null,
      reachability: { state: 'untried' },
      certificate: { id: soonCert, expiry: 'expiring', common_name: 'soon.example' },
      certificate_count: 2,
    });
    t.ok(
      [9, 10].includes(byName.soon.certificate.days_left),
      `days left: ${byName.soon.certificate.days_left}`,
    );
    const filtered = await server.call('GET', '/api/v1/partner-status?q=doWN');
    t.same(
      filtered.body.data.partners.map((p: { name: string }) => p.name),
      ['down'],
      'q filters by name, any case',
    );
    const bad = await server.call('GET', '/api/v1/partner-status?limit=0');
    t.equal(bad.status, 400, 'a bad paging value is refused, not a 500');
  },
);

t.test('the partner list shows who needs attention without opening any partner', async (t) => {
  const { page, problems } = await openPage(browser);
  await page.goto(`${server.url}/ui/partners`);
  const row = (name: string) => textOf(page, `tr:has(a:text-is("${name}"))`);
  const r1 = await row('r1');
  t.match(r1, /Delivered/, 'last sent: its status');
  t.match(r1, /Reachable/);
  t.match(r1, /Valid pier\.example/);
  t.match(await row('sp1'), /Received|Not routed|Delivered/, 'last received shown for the partner who sent');
  const down = await row('down');
  t.match(down, /Error/);
  t.match(down, /Unreachable/);
  t.match(down, /ECONNREFUSED|refused/i, 'the reason of the failed attempt');
  const soon = await row('soon');
  t.match(soon, /Expires in (9|10) days soon\.example/);
  t.match(soon, /soonest of 2/);
  t.match(soon, /None yet.*None yet/, 'nothing exchanged yet, each way');
  t.equal(await page.locator('tr:has(a:text-is("soon")) .badge-expiring').count(), 1, 'flagged as expiring');
  await noSeriousViolations(t, page, 'partner list');
  await page.screenshot({ path: path.join(shots, 'partner-list.png'), fullPage: true });
  // The last message links to its page.
  await page.click('tr:has(a:text-is("r1")) a:has-text("Delivered")');
  await page.waitForURL(`**/ui/messages/${String(sent.id)}`);
  t.same(problems, [], 'no console or page error');
});

t.test('one partner page holds its standing, AS2 profile, certificates, routes and instances', async (t) => {
  const { page, problems } = await openPage(browser);
  await page.goto(`${server.url}/ui/partners`);
  await page.click('a:text-is("sp1")');
  await page.waitForSelector('h1:has-text("Partner sp1")');
  for (const heading of ['Standing', 'Details', 'AS2 profile', 'Certificates', 'Routes', 'Instances'])
    t.equal(await page.locator(`h2:text-is("${heading}")`).count(), 1, `section ${heading}`);
  t.match(await textOf(page, 'section[aria-labelledby="partner-standing-heading"]'), /Last received/);
  const certificates = await textOf(page, 'section[aria-labelledby="partner-certificates-heading"]');
  t.match(certificates, /Encrypting to the partner pier\.example/);
  t.match(certificates, /Verifying the partner’s signatures pier\.example/);
  const routes = await textOf(page, 'section[aria-labelledby="partner-routes-heading"]');
  t.match(routes, /sp1 ro1 in \* files/, 'the route that names the partner');
  const instances = await textOf(page, 'section[aria-labelledby="partner-instances-heading"]');
  t.match(instances, /files file-writer running/);
  t.match(instances, /in as2-receiver running/);
  await noSeriousViolations(t, page, 'partner page');
  await page.screenshot({ path: path.join(shots, 'partner-page.png'), fullPage: true });
  // Each section leads where its part is changed.
  await page.click('a:text-is("files")');
  await page.waitForURL('**/ui/instances/file-writer/files');
  await page.goBack();
  await page.click('section[aria-labelledby="partner-routes-heading"] tbody a');
  await page.waitForURL(/\/ui\/routes\/\d+$/);
  await page.goBack();
  await page.click('a:text-is("Change which certificates the profile uses")');
  await page.waitForURL(/\/ui\/partners\/\d+\/profile$/);
  t.same(problems, [], 'no console or page error');
});

t.test('a partner with an expiring certificate says so on its page', async (t) => {
  const { page } = await openPage(browser);
  await page.goto(`${server.url}/ui/partners/${soonId}`);
  const standing = await textOf(page, 'section[aria-labelledby="partner-standing-heading"]');
  t.match(standing, /Expires in (9|10) days soon\.example/);
  t.match(standing, /Not tried yet/);
  const certificates = await textOf(page, 'section[aria-labelledby="partner-certificates-heading"]');
  t.match(certificates, /Encrypting to the partner soon\.example Expires in (9|10) days/);
  t.match(certificates, /Verifying the partner’s signatures pier\.example Valid/);
});
