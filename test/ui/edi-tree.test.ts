// Covers the message page's interchange tree in a real browser (chromium + playwright-core): an EDIFACT ORDERS sent by hand is drawn as interchange, message and segments with position names, directory names and code meanings, and a live update of the page keeps what the reader opened; an X12 856 with its groups; a payload that is not EDI shows no tree; axe with no serious or critical violation, no console error, a screenshot (test/ui/chromium.ts says where).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { must, parties, sendByHand, tempDir } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { launchChromium, noSeriousViolations, openPage, shots, textOf } from './chromium.js';

const server = await startTestServer(t, { developerBuild: true, listen: true });
const base = server.url!;
const dir = await tempDir(t);
await parties(server);
await must(server, '/plugins/configs?type=file-writer', { name: 'out', directory: path.join(dir, 'out') });
const corpus = (file: string) => readFileSync(path.join(import.meta.dirname, '../fixtures/edi-json', file));
const delivered = (m: { status: string }) => m.status === 'Delivered';
const orders = await sendByHand(
  server,
  { from: 'acme', to: 'globex', target: 'out' },
  { name: 'orders.edi', content: corpus('edifact-orders-una-lf-release.edi') },
  delivered,
);
const asn = await sendByHand(
  server,
  { from: 'acme', to: 'globex', target: 'out' },
  { name: 'asn.edi', content: corpus('x12-856-pipe-no-breaks.edi') },
  delivered,
);
const notes = await sendByHand(
  server,
  { from: 'acme', to: 'globex', target: 'out' },
  { name: 'notes.txt', content: 'not an interchange' },
  delivered,
);
const browser = await launchChromium(t);

t.test('an EDIFACT interchange as a tree, accessible, with a screenshot', async (t) => {
  const { page, problems } = await openPage(browser);
  let treeReads = 0;
  page.on('request', (r) => void (r.url().endsWith('/edi-tree') && treeReads++));
  const answer = await page.goto(`${base}/ui/messages/${orders.id}`);
  t.equal(answer?.status(), 200);
  await page.waitForSelector('section#edi-tree ul.edi-tree');
  const tree = await textOf(page, 'section#edi-tree');
  for (const shown of [
    'EDIFACT UNOC : 3, reference 6001',
    'Message ORDERS : D : 96A : UN : EAN008, control 1 (19 segments)',
  ])
    t.match(tree, shown, `shows ${shown}`);
  await page.click('section#edi-tree summary:has-text("Message ORDERS")');
  const bgm = await textOf(page, 'section#edi-tree li.edi-segment:has(code.edi-tag:text-is("BGM"))');
  for (const shown of [
    'Beginning of message',
    'C002.1001',
    'Document/message name, coded',
    '220',
    'Order',
    'PO-2026-0042',
  ])
    t.match(bgm, shown, `the BGM shows ${shown}`);
  const ftx = await textOf(page, 'section#edi-tree li.edi-segment:has(code.edi-tag:text-is("FTX"))');
  t.match(ftx, "Mind the step: it's 1+1 high", 'released characters shown as data');

  // A live update swaps the message's sections; the tree stays as the reader left it, unread again.
  const entries = await page.locator('.timeline li').count();
  const [delivery] = orders.deliveries; // sendByHand answers with GET /messages/{id}'s data
  await must(server, `/messages/${orders.id}/deliveries/${delivery.id}/redeliver`);
  await page.waitForFunction((n) => document.querySelectorAll('.timeline li').length > n, entries);
  t.match(await textOf(page, '.timeline'), /redeliver requested/i, 'the history grew in place');
  t.equal(
    await page.locator('section#edi-tree details[open] > summary:has-text("Message ORDERS")').count(),
    1,
    'the opened message stays open',
  );
  t.match(
    await textOf(page, 'section#edi-tree li.edi-segment:has(code.edi-tag:text-is("BGM"))'),
    'PO-2026-0042',
    'its segments still shown',
  );
  t.equal(treeReads, 1, 'the interchange was read once');
  await noSeriousViolations(t, page, 'message-edi-tree');
  await page.screenshot({ path: path.join(shots, 'message-edi-tree.png'), fullPage: true });
  t.same(problems, [], 'no console errors');
  await page.context().close();
});

t.test('an X12 interchange with its group; no tree for a payload that is not EDI', async (t) => {
  const { page } = await openPage(browser);
  await page.goto(`${base}/ui/messages/${asn.id}`);
  await page.waitForSelector('section#edi-tree ul.edi-tree');
  const tree = await textOf(page, 'section#edi-tree');
  t.match(tree, 'X12 00501, control 000000301, from ACMESUPPLY to PIERBUYER');
  t.match(tree, 'Group SH, control 3001');
  await page.click('section#edi-tree summary:has-text("Transaction set 856")');
  t.match(await textOf(page, 'section#edi-tree li.edi-segment:has(code.edi-tag:text-is("BSN"))'), 'BSN02');
  await page.goto(`${base}/ui/messages/${notes.id}`);
  t.equal(await page.locator('#edi-tree').count(), 0, 'no tree');
  await page.context().close();
});
