// Covers every page of the web UI in a real browser in the dark theme, found by following the links from the dashboard (test/ui/every-page.ts): each answers 200 and axe reports no violation of any impact.
import t from 'tap';
import { noViolations, openPage } from './chromium.js';
import { everyPage, shapeOf } from './every-page.js';

const { base, browser, pages, partnerId } = await everyPage(t);

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

t.test('every page passes axe with no violation (dark)', async (t) => {
  const { page, problems } = await openPage(browser, { colorScheme: 'dark' });
  for (const url of pages) {
    const answer = await page.goto(`${base}${url}`);
    t.equal(answer?.status(), 200, `${url} answers 200`);
    await page.waitForSelector('main h1');
    await noViolations(t, page, url);
  }
  t.same(problems, [], 'no console errors (a CSP violation would be one)');
  await page.context().close();
});
