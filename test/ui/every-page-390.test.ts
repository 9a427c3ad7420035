// Covers every page of the web UI at 390 px wide (a phone) in a real browser, found by following the links from the dashboard (test/ui/every-page.ts): nothing is wider than the screen, so no page scrolls sideways.
import t from 'tap';
import { openPage } from './chromium.js';
import { everyPage, visitEveryPage } from './every-page.js';

const { base, browser } = await everyPage(t);

t.test('every page is usable at 390 px: nothing wider than the screen', async (t) => {
  const { page } = await openPage(browser, { width: 390, height: 844 });
  const pages = await visitEveryPage(page, base, async (url) => {
    const wide = await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const over = document.documentElement.scrollWidth - width;
      // What sticks out, to say where to look when it fails.
      const culprits = [...document.querySelectorAll('main *')]
        .filter((e) => e.getBoundingClientRect().right > width + 1)
        .filter((e) => !e.closest('.table-wrap'))
        .slice(0, 3)
        .map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}.${[...e.classList].join('.')}`);
      return { over, culprits };
    });
    t.ok(
      wide.over <= 1,
      `${url}: no sideways scrolling at 390 px (${wide.over} px over; ${wide.culprits.join(', ')})`,
    );
  });
  t.ok(pages.length > 20, `${pages.length} pages visited`);
  await page.context().close();
});
