// Covers the certificate exchange page in a real browser (Debian chromium + playwright-core) over real AS2 on loopback: a refused send shows the API's messages beside their fields, a request sent from the form arrives at the partner side (one pier plays both sides), is listed as pending there and is accepted from its page; the answer reaches our side. Takes the screenshots docs/ui/cem.png and docs/ui/cem-exchange.png.
import path from 'node:path';
import t from 'tap';
import { browserAs2Loop, storeCertificate } from '../helpers/as2.js';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { launchChromium, noSeriousViolations, openPage, shots, textOf } from './chromium.js';

const server = await startTestServer(t, { developerBuild: true, listen: true });
const { fixtures } = await browserAs2Loop(t, server);
// The certificate the request offers in place of `as2`.
fixtures.selfSigned('as2-2027', '/CN=pier-as2 2027/O=Pier', 730);
const next = await storeCertificate(server, fixtures, 'as2-2027');
const browser = await launchChromium(t);

t.test('send a request from the form, accept it on the partner side', async (t) => {
  const { page, problems } = await openPage(browser);
  await page.goto(`${server.url}/ui/cem`);
  await page.selectOption('#f-partner_id', { label: 'r1' });
  await page.selectOption('#f-certificate_id', { value: String(next) });
  await page.fill('#f-respond_by', 'next week');
  await page.fill('#f-organization', 's1');
  await page.click('button:has-text("Send request")');
  t.match(
    await textOf(page, 'main'),
    'Must be an RFC 3339 date and time',
    'the refusal is shown beside its field',
  );

  const respondBy = new Date(Date.now() + 14 * 24 * 3600 * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
  await page.selectOption('#f-partner_id', { label: 'r1' });
  await page.selectOption('#f-certificate_id', { value: String(next) });
  await page.fill('#f-respond_by', respondBy);
  await page.fill('#f-organization', 's1');
  await page.click('button:has-text("Send request")');
  await page.waitForSelector('h1:has-text("Certificate exchange")');
  t.match(await textOf(page, 'main'), 'our request to the partner');
  t.match(await textOf(page, 'main'), 'pending');

  const theirs = await waitFor(
    async () => {
      const list = await server.call('GET', '/api/v1/cem/exchanges?direction=inbound');
      return list.body.data.exchanges[0];
    },
    'the request arrived',
    30_000,
  );
  await page.goto(`${server.url}/ui/cem`);
  const listed = await textOf(page, 'main');
  t.match(listed, "the partner's, to us");
  t.match(listed, 'sp1');
  await page.screenshot({ path: path.join(shots, 'cem.png'), fullPage: true });
  await noSeriousViolations(t, page, 'certificate exchange list');

  await page.goto(`${server.url}/ui/cem/${theirs.id}`);
  await page.screenshot({ path: path.join(shots, 'cem-exchange.png'), fullPage: true });
  await noSeriousViolations(t, page, 'certificate exchange page');
  await page.click('button:has-text("Accept")');
  await page.waitForSelector('h1:has-text("Certificate exchange")');
  t.match(await textOf(page, 'main'), 'accepted');
  t.notMatch(await textOf(page, 'main'), 'Answer the partner', 'no second answer offered');
  await waitFor(
    async () => {
      const ours = await server.call('GET', '/api/v1/cem/exchanges?direction=outbound');
      return ours.body.data.exchanges[0].state === 'accepted' ? true : undefined;
    },
    'the answer reached our side',
    30_000,
  );
  // The refused form is answered 400 on purpose; the browser logs that status as an error.
  t.same(
    problems.filter((p) => !p.includes('status of 400')),
    [],
    'no other console or page errors',
  );
});
