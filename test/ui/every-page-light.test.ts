// Covers every page of the web UI in a real browser in the light theme, found by following the links from the dashboard (test/ui/every-page.ts): each answers 200 and axe reports no violation of any impact.
import t from 'tap';
import { noViolations, openPage } from './chromium.js';
import { everyPage, expectedAmong, visitEveryPage } from './every-page.js';

// Every axe rule on some fifty pages: 70 s alone on a quiet 2-core machine, over five minutes
// with two other heavy files beside it.
t.setTimeout(600_000);
const { base, browser, partnerId } = await everyPage(t);

t.test('every page passes axe with no violation (light)', async (t) => {
  const { page, problems } = await openPage(browser, { colorScheme: 'light' });
  const pages = await visitEveryPage(page, base, async (url, status) => {
    t.equal(status, 200, `${url} answers 200`);
    await noViolations(t, page, url);
  });
  expectedAmong(t, pages, partnerId);
  t.same(problems, [], 'no console errors (a CSP violation would be one)');
  await page.context().close();
});
