// Covers the operator's task "did invoice 0042 go out?" in a real browser over real AS2 on loopback: a search by file name from the Messages page, its bookmarkable URL, the AS2 headers shown as a table, then searches by AS2 Message-ID and by partner; page loads and form submissions counted; axe finds no violation; usable at 390 px.
import path from 'node:path';
import t from 'tap';
import { browserAs2Loop } from '../helpers/as2.js';
import { sendByHand } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { launchChromium, openPage, shots, textOf } from './chromium.js';
import { countTask, fitsWidth, follow, noViolations, submit } from './task-counter.js';

const server = await startTestServer(t, { developerBuild: true, listen: true });
await browserAs2Loop(t, server);

// Three invoices to one partner over AS2; the receiving side of the loop stores them too.
const sent: Record<string, { id: string; as2Id: string }> = {};
for (const name of ['invoice-0041.edi', 'invoice-0042.edi', 'order-0042.edi']) {
  const m = await sendByHand(
    server,
    { from: 's1', to: 'r1', target: 'out' },
    { name, content: `UNB+UNOC:3+S1+R1'\nBGM+380+${name}'\n` },
    (x) => x.status === 'Delivered',
  );
  sent[name] = { id: m.id, as2Id: m.protocols.as2.message_id };
}

const browser = await launchChromium(t);

t.test('find a message by file name: 3 page loads, 1 form submission', async (t) => {
  const { page, problems } = await openPage(browser);
  const count = countTask(page);
  await page.goto(`${server.url}/ui/messages`);
  await page.fill('#f-q', 'Invoice-0042');
  await submit(page, count, 'form[role="search"] button[type="submit"]');
  t.match(page.url(), /\/ui\/messages\?q=Invoice-0042$/, 'the search is in the URL');
  const found = await page.$$eval('table tbody tr', (rows) => rows.map((r) => r.textContent ?? ''));
  t.ok(found.length >= 1, 'found');
  t.ok(
    found.every((r) => r.includes('invoice-0042.edi')),
    'only invoice 0042, any case',
  );
  t.match(await textOf(page, '.search-summary'), /found for Invoice-0042/);
  t.equal(await page.inputValue('#f-q'), 'Invoice-0042', 'the search box keeps the words');
  await noViolations(t, page, 'the search result');
  await page.screenshot({ path: path.join(shots, 'find-message.png'), fullPage: true });

  await follow(page, `a[href="/ui/messages/${sent['invoice-0042.edi']!.id}"]`);
  t.match(await textOf(page, 'main'), 'Delivered');
  const headers = await page.$$eval('[data-headers="message"] tbody tr', (rows) =>
    rows.map((r) => [...r.querySelectorAll('td')].map((c) => (c.textContent ?? '').trim())),
  );
  const byName = Object.fromEntries(headers.map(([name, value]) => [name, value]));
  t.equal(byName['AS2-From'], 'S1', 'AS2-From in its own row');
  t.equal(byName['AS2-To'], 'R1');
  t.equal(byName['Message-ID'], sent['invoice-0042.edi']!.as2Id);
  t.notMatch(await textOf(page, 'section[aria-labelledby="as2-heading"]'), /[{}]/, 'no JSON blob');
  await noViolations(t, page, 'the message with its AS2 headers');
  await page.screenshot({ path: path.join(shots, 'message-as2-headers.png'), fullPage: true });
  t.same(
    { loads: count.loads, submissions: count.submissions, posts: count.posts },
    { loads: 3, submissions: 1, posts: 0 },
  );
  t.same(problems, []);
  await page.context().close();
});

t.test('a shared search link, by AS2 Message-ID and by partner', async (t) => {
  const { page, problems } = await openPage(browser);
  const as2Id = sent['invoice-0041.edi']!.as2Id;
  await page.goto(`${server.url}/ui/messages?q=${encodeURIComponent(as2Id)}&direction=outbound`);
  const rows = await page.$$eval('table tbody tr', (r) => r.map((x) => x.textContent ?? ''));
  t.equal(rows.length, 1, 'the one outbound message with that Message-ID');
  t.match(rows[0], 'invoice-0041.edi');
  t.equal(await page.inputValue('#f-q'), as2Id);
  t.equal(await page.inputValue('#f-direction'), 'outbound', 'every filter comes back from the URL');

  await page.goto(`${server.url}/ui/messages?q=r1&direction=outbound`);
  const partnerRows = await page.$$eval('table tbody tr', (r) => r.map((x) => x.textContent ?? ''));
  t.equal(partnerRows.length, 3, 'the three messages to partner r1');
  await page.goto(`${server.url}/ui/messages?q=nothing-like-this`);
  t.match(await textOf(page, 'main'), 'No messages match.');
  t.same(problems, []);
  await page.context().close();
});

t.test('at 390 px the search and the message page need no sideways scrolling', async (t) => {
  const { page } = await openPage(browser, { width: 390, height: 844 });
  await page.goto(`${server.url}/ui/messages?q=invoice`);
  t.ok(await fitsWidth(page), 'the search page fits');
  await page.screenshot({ path: path.join(shots, 'find-message-390.png'), fullPage: true });
  await page.goto(`${server.url}/ui/messages/${sent['invoice-0042.edi']!.id}`);
  t.ok(await fitsWidth(page), 'the message page fits');
  await noViolations(t, page, 'the message page at 390 px');
  await page.context().close();
});
