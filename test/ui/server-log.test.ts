// Covers the Server log page in a real browser (Debian chromium + playwright-core): the server's
// recent lines newest first, filtered by level (that level and above) and by component from the
// components the lines name, secrets censored, reached from the navigation.
import pino from 'pino';
import t from 'tap';
import { loggerOptions } from '../../api/logger.js';
import { RecentLog } from '../../api/server-log/recent-lines.js';
import { startTestServer } from '../helpers/server.js';
import { launchChromium, noSeriousViolations, openPage, textOf } from './chromium.js';

const recentLog = new RecentLog();
const logger = pino(loggerOptions({ LOG_LEVEL: 'info' }, recentLog.keep), { write: () => {} });
const server = await startTestServer(t, { developerBuild: true, listen: true, logger, recentLog });
const browser = await launchChromium(t);

logger.child({ component: 'dispatcher' }).warn({ message_id: 'm-42' }, 'delivery retrying');
logger
  .child({ component: 'supervisor', instance: 'file-poller:acme-outbox' })
  .error(
    { err: { message: 'ENOENT: no such file or directory', password: 'Nested-Secret-1' } },
    'instance failed',
  );
logger.info({ token: 'Top-Secret-2' }, 'token line');

t.test('recent lines, by level and component, no secret', async (t) => {
  const { page, problems } = await openPage(browser);
  await page.goto(`${server.url}/ui`);
  await page.click('nav >> text=Server log');
  await page.waitForURL(/\/ui\/server-log/);
  const all = await textOf(page, 'table');
  t.match(all, /instance failed/);
  t.match(all, /delivery retrying/);
  t.match(all, /token line/);
  t.ok(all.indexOf('token line') < all.indexOf('delivery retrying'), 'newest first');
  t.notMatch(await page.content(), /Secret-1|Secret-2/, 'no secret on the page');
  await noSeriousViolations(t, page, 'server log');

  await page.selectOption('#log-level', 'warn');
  await page.click('button:has-text("Show")');
  const warnings = await textOf(page, 'table tbody');
  t.match(warnings, /instance failed/);
  t.match(warnings, /delivery retrying/);
  t.notMatch(warnings, /token line|request/);

  await page.selectOption('#log-component', 'file-poller');
  await page.click('button:has-text("Show")');
  const rows = await page.locator('table tbody tr').count();
  t.equal(rows, 1, 'only the file poller line');
  t.match(
    await textOf(page, 'table tbody'),
    /error file-poller instance failed .*instance=file-poller:acme-outbox/,
  );
  t.equal(await page.inputValue('#log-level'), 'warn', 'the filters stay chosen');
  t.same(problems, [], 'no console error');
});
