// Covers every page of the web UI in a real browser in the dark theme, found by following the links from the dashboard (test/ui/every-page.ts): each answers 200 and axe reports no violation of colour contrast (the light-theme test runs every rule; the theme changes only colours).
import t from 'tap';
import { noViolations, openPage } from './chromium.js';
import { everyPage, expectedAmong, visitEveryPage } from './every-page.js';

const { base, browser, partnerId } = await everyPage(t);

t.test('every page passes axe with no violation (dark)', async (t) => {
  const { page, problems } = await openPage(browser, { colorScheme: 'dark' });
  const pages = await visitEveryPage(page, base, async (url, status) => {
    t.equal(status, 200, `${url} answers 200`);
    await noViolations(t, page, url, ['color-contrast']);
  });
  expectedAmong(t, pages, partnerId);
  t.same(problems, [], 'no console errors (a CSP violation would be one)');
  await page.context().close();
});
