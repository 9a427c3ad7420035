// Covers the EDI parts of the web UI in a real browser (chromium + playwright-core): a partner's interchange ids, acknowledgement settings and speaks_for list on its form, a route's document type, a message's EDI envelope section and the messages page filtered by document type; axe with no serious or critical violation, screenshots (test/ui/chromium.ts says where), and a form refusal worded as the API's.
import path from 'node:path';
import t from 'tap';
import { fileFlow, must, sendByHand, tempDir } from '../helpers/flow.js';
import { purchaseOrder } from '../helpers/edi.js';
import { startTestServer } from '../helpers/server.js';
import { launchChromium, noSeriousViolations, openPage, shots, textOf } from './chromium.js';

const server = await startTestServer(t, { developerBuild: true, listen: true });
const base = server.url!;
const dir = await tempDir(t);
await must(server, '/organizations', { name: 'acme', interchange_ids: [{ qualifier: 'ZZ', id: 'ACME' }] });
const partner = await must(server, '/partners', {
  name: 'shopco',
  display_name: 'Shop Co',
  interchange_ids: [
    { qualifier: 'ZZ', id: 'SHOPCO' },
    { qualifier: '01', id: '123456789' },
  ],
  x12_acknowledgement: '999',
  edifact_acknowledgement: 'contrl',
  acknowledgement_due_hours: 24,
});
await fileFlow(server, dir, { to: 'shopco', route: { document_type: '850' } });
const sent = await sendByHand(
  server,
  { from: 'acme', to: 'shopco', target: 'out' },
  { name: 'po-77.edi', content: purchaseOrder(77, 'ACME', 'SHOPCO', 2) },
  (m) =>
    m.status === 'Delivered' &&
    (m.protocols as { edi?: { acknowledgement: { status: string } } }).edi?.acknowledgement.status ===
      'expected',
  'the 850 awaiting its acknowledgement',
);
const browser = await launchChromium(t);

t.test('the pages: accessible, no console error, screenshots at 1280 × 800', async (t) => {
  const { page, problems } = await openPage(browser);
  for (const [name, url] of [
    ['partner-edi', `/ui/partners/${String(partner.body.data.id)}`],
    ['routes-document-type', '/ui/routes'],
    ['message-edi', `/ui/messages/${sent.id}`],
    ['messages-edi-filters', '/ui/messages?document_type=850&acknowledgement=expected'],
  ] as const) {
    const answer = await page.goto(`${base}${url}`);
    t.equal(answer?.status(), 200, `${name} answers 200`);
    await noSeriousViolations(t, page, name);
    await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: name === 'message-edi' });
  }
  t.same(problems, [], 'no console errors');
  await page.context().close();
});

t.test('what the pages show', async (t) => {
  const { page } = await openPage(browser);
  await page.goto(`${base}/ui/messages/${sent.id}`);
  const section = await textOf(page, 'section[aria-labelledby="edi-heading"]');
  for (const shown of ['X12 00401', 'ZZ:ACME', 'ZZ:SHOPCO', '000000077', '850', 'expected'])
    t.match(section, shown, `the envelope section shows ${shown}`);
  await page.goto(`${base}/ui/messages?document_type=850`);
  t.match(await textOf(page, 'table'), 'po-77.edi', 'the filter finds it');
  await page.goto(`${base}/ui/messages?document_type=856`);
  t.notMatch(await page.content(), 'po-77.edi', 'and only it');
  await page.goto(`${base}/ui/routes`);
  t.match(await textOf(page, 'table'), '850');
  await page.context().close();
});

t.test('the partner form refuses an id another party holds, as the API does', async (t) => {
  const { page } = await openPage(browser);
  await page.goto(`${base}/ui/partners/${String(partner.body.data.id)}`);
  t.equal(await page.inputValue('#f-x12_acknowledgement'), '999');
  // The stored ids (ZZ SHOPCO, 01 123456789) become one: ZZ ACME, which acme holds.
  await page.fill('#f-interchange_ids-id-0', 'ACME');
  await page.selectOption('#f-interchange_ids-qualifier-1', '');
  await page.fill('#f-interchange_ids-id-1', '');
  await page.click('button:has-text("Save")');
  await page.waitForSelector('#f-interchange_ids-error');
  const api = await server.call('PUT', `/api/v1/partners/${String(partner.body.data.id)}`, {
    body: { interchange_ids: [{ qualifier: 'ZZ', id: 'ACME' }] },
  });
  t.equal(api.status, 409);
  t.equal(await textOf(page, '#f-interchange_ids-error'), api.body.error.details.interchange_ids);
  await page.context().close();
});

t.test(
  'the partner form sets the partners it speaks for, and refuses one that does not exist, as the API does',
  async (t) => {
    await must(server, '/partners', { name: 'member' });
    const id = String(partner.body.data.id);
    const { page } = await openPage(browser);
    await page.goto(`${base}/ui/partners/${id}`);
    await page.fill('#f-speaks_for', 'ghost');
    await page.click('button:has-text("Save")');
    await page.waitForSelector('#f-speaks_for-error');
    const api = await server.call('PUT', `/api/v1/partners/${id}`, { body: { speaks_for: ['ghost'] } });
    t.equal(api.status, 400);
    t.equal(await textOf(page, '#f-speaks_for-error'), api.body.error.details.speaks_for);
    await page.goto(`${base}/ui/partners/${id}`);
    await page.fill('#f-speaks_for', 'member');
    await page.click('button:has-text("Save")');
    await page.waitForLoadState('networkidle');
    t.same((await server.call('GET', `/api/v1/partners/${id}`)).body.data.speaks_for, ['member'], 'stored');
    await page.context().close();
  },
);
