// Covers the dashboard's system status in a real browser: Healthy with nothing open; a receiver whose port another program holds makes it "Needs attention", naming the failure with a link that opens the instance's settings page; once the port is free and the instance restarted, plugin_recovered ends the alert and the status is Healthy again.
import { createServer, type Server } from 'node:net';
import t from 'tap';
import { sql } from '../helpers/database.js';
import { must } from '../helpers/flow.js';
import { freePort } from '../helpers/free-port.js';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { launchChromium, noSeriousViolations as axe, openPage, textOf } from './chromium.js';

const server = await startTestServer(t, { developerBuild: true, listen: true });
const base = server.url!;
const browser = await launchChromium(t);
const { page, problems } = await openPage(browser);

t.test('Healthy while no alert stands', async (t) => {
  await page.goto(`${base}/ui`);
  t.equal(await textOf(page, '.system'), 'System status: Healthy');
  t.equal(await page.locator('.open-alerts').count(), 0, 'no list of open alerts');
});

t.test(
  'a receiver whose port is taken: Needs attention, named, with a link to where it is fixed',
  async (t) => {
    const port = await freePort();
    const squatter: Server = createServer();
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
    await must(server, '/plugins/configs?type=as2-receiver', { name: 'inbound', host: '127.0.0.1', port });
    await waitFor(
      async () =>
        (
          await sql(
            server.db.url,
            "select 1 from alert where code = 'plugin_failed' and subject_name = 'inbound'",
          )
        ).length > 0,
      'plugin_failed raised',
    );
    await page.goto(`${base}/ui`);
    t.equal(await textOf(page, '.system'), 'System status: Needs attention');
    const item = await textOf(page, '.open-alerts li');
    t.match(
      item,
      /critical as2-receiver inbound failed to start: .*EADDRINUSE.*its port is taken by another program/,
    );
    await axe(t, page, 'dashboard with an open alert');
    await page.click('.open-alerts a');
    await page.waitForURL(`${base}/ui/instances/as2-receiver/inbound`);
    t.match(await textOf(page, 'main h1'), /inbound/, "the link opens the instance's settings");

    await new Promise<void>((resolve) => squatter.close(() => resolve()));
    const restarted = await server.call('POST', '/api/v1/services/as2-receiver/inbound/start', { body: {} });
    t.equal(restarted.status, 200, 'starts once the port is free');
    const [recovered] = await sql(server.db.url, "select * from alert where code = 'plugin_recovered'");
    t.match(recovered, { subject_id: 'as2-receiver:inbound', link: '/ui/instances/as2-receiver/inbound' });
    await page.goto(`${base}/ui`);
    t.equal(await textOf(page, '.system'), 'System status: Healthy', 'Healthy again');
    t.equal(await page.locator('.open-alerts').count(), 0);
    t.same(problems, [], 'no console errors');
  },
);
