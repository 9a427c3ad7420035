// Covers live updates in a real browser (chromium + playwright-core): with the messages list, a message's page and the dashboard open, messages flow and GET /events brings the new message, its changed status, deliveries and history, and the dashboard's figures and its chart (data, drawing and legend) into the pages without a reload; the message page and the dashboard announce changes through aria-live regions; and a page whose subscription opens only after its message was delivered (held back by the browser's routing) shows the delivery once it subscribes.
import path from 'node:path';
import type { Page } from 'playwright-core';
import t from 'tap';
import { must, parties, tempDir, upload, waitForMessage } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { launchChromium, noSeriousViolations, openPage, textOf } from './chromium.js';

const server = await startTestServer(t, { developerBuild: true, listen: true });
const dir = await tempDir(t);
await parties(server);
// Stopped until the test starts it, so the first message waits in the queue while the pages are open.
await must(server, '/plugins/configs?type=file-writer', {
  name: 'inbox',
  directory: path.join(dir, 'out'),
  enabled: false,
});
const browser = await launchChromium(t);

async function send(name: string): Promise<string> {
  const made = await upload(
    server,
    { from: 'acme', to: 'globex', target: 'inbox' },
    { name, content: `${name}\n` },
  );
  if (made.status !== 201) throw new Error(`upload of ${name}: ${made.raw}`);
  return made.body.data.id as string;
}

/** Counts the page's navigations (a live update must not be one) and leaves a mark a reload would wipe. */
async function watchReloads(page: Page): Promise<() => Promise<{ navigations: number; marked: boolean }>> {
  let navigations = 0;
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) navigations++;
  });
  await page.evaluate(() => ((window as unknown as { pierMark: number }).pierMark = 1));
  return async () => ({
    navigations,
    marked: await page.evaluate(() => (window as unknown as { pierMark?: number }).pierMark === 1),
  });
}

/** Waits until the message page's status fact says `status`. */
const statusShown = (page: Page, status: string, timeout?: number) =>
  page.waitForFunction(
    (text) => document.querySelector('#message-status')?.textContent?.includes(text),
    `Status ${status}`,
    timeout === undefined ? {} : { timeout },
  );

t.test('the list, a message and the dashboard follow the flow without reloading', async (t) => {
  const first = await send('first.edi');
  const list = await openPage(browser);
  const detail = await openPage(browser);
  const dashboard = await openPage(browser);
  // Each page holds its event stream open before anything moves.
  const streams = [list, detail, dashboard].map((p) =>
    p.page.waitForResponse((r) => new URL(r.url()).pathname === '/ui/events'),
  );
  await list.page.goto(`${server.url}/ui/messages`);
  await detail.page.goto(`${server.url}/ui/messages/${first}`);
  await dashboard.page.goto(`${server.url}/ui`);
  for (const stream of await Promise.all(streams)) {
    t.equal(stream.status(), 200, 'the event stream is open');
    t.match(stream.headers()['content-type'], 'text/event-stream');
  }
  t.equal(
    await detail.page.getAttribute('body', 'data-events'),
    `/ui/events?message_id=${first}`,
    "the message page follows its message's lines only",
  );
  t.equal(await list.page.getAttribute('body', 'data-events'), '/ui/events');
  const statusBefore = await textOf(detail.page, '#message-status');
  t.notMatch(statusBefore, 'Delivered', `not delivered yet (${statusBefore})`);
  const figure = async () => Number(await dashboard.page.innerText('#figures li:first-child .figure'));
  const before = await figure();
  /** Messages in the chart's data: the inbound and outbound series together. */
  const charted = () =>
    dashboard.page.evaluate(() => {
      const data = JSON.parse(document.getElementById('chart-data')!.getAttribute('data-chart')!) as {
        series: { label: string; values: number[] }[];
      };
      return data.series
        .filter((s) => s.label === 'inbound' || s.label === 'outbound')
        .reduce((sum, s) => sum + s.values.reduce((a, b) => a + b, 0), 0);
    });
  const chartedBefore = await charted();
  const reloads = await Promise.all([list, detail, dashboard].map((p) => watchReloads(p.page)));
  const started = await server.call('POST', '/api/v1/services/file-writer/inbox/start', { body: {} });
  t.equal(started.status, 200, started.raw);
  await waitForMessage(server, first, (m) => m.status === 'Delivered', 'first.edi delivered');

  await statusShown(detail.page, 'Delivered');
  t.match(await textOf(detail.page, '#live-message dl'), 'Delivered', 'the status fact changed in place');
  t.match(await textOf(detail.page, '#live-message table'), 'delivered', 'the delivery changed in place');
  t.match(await textOf(detail.page, '.timeline'), /delivery changed/i, 'the history grew');
  t.equal(await detail.page.getAttribute('#message-status', 'aria-live'), 'polite');
  t.equal(await detail.page.getAttribute('#message-status', 'role'), 'status');
  await list.page.waitForFunction(
    (id) => document.querySelector(`[data-status-of="${id}"]`)?.textContent?.includes('Delivered'),
    first,
  );
  t.pass('the list row changed status in place');

  const second = await send('second.edi');
  await list.page.waitForSelector(`[data-status-of="${second}"]`);
  t.match(await textOf(list.page, '#live-messages'), 'second.edi', 'a new message appears in the list');
  await dashboard.page.waitForFunction(
    (n) => Number(document.querySelector('#figures li:first-child .figure')?.textContent) >= n + 1,
    before,
  );
  t.equal(await dashboard.page.getAttribute('#live-figures', 'aria-live'), 'polite');
  t.equal(await figure(), before + 1, 'the dashboard counted the new message');
  // The chart follows the same event as the cards: its data and its drawing are refreshed too.
  await dashboard.page.waitForFunction(() => document.getElementById('chart')?.hasAttribute('data-updated'));
  await dashboard.page.waitForFunction((n) => {
    const data = JSON.parse(document.getElementById('chart-data')!.getAttribute('data-chart')!) as {
      series: { label: string; values: number[] }[];
    };
    const total = data.series
      .filter((s) => s.label === 'inbound' || s.label === 'outbound')
      .reduce((sum, s) => sum + s.values.reduce((a, b) => a + b, 0), 0);
    return total >= n + 1;
  }, chartedBefore);
  t.equal(await charted(), chartedBefore + 1, 'the chart counted the new message too');
  t.ok(await dashboard.page.$('#chart canvas'), 'the chart is drawn');
  t.match(
    await textOf(dashboard.page, '#live-chart'),
    /Delivered\s+delivered/,
    'the legend names each status',
  );
  t.notMatch(
    await textOf(detail.page, '.timeline'),
    'second.edi',
    'the message page shows only its own message',
  );

  for (const [i, check] of reloads.entries()) {
    t.same(await check(), { navigations: 0, marked: true }, `page ${i + 1} was never reloaded`);
  }
  await noSeriousViolations(t, detail.page, 'message page after live updates');
  await noSeriousViolations(t, dashboard.page, 'dashboard after live updates');
  t.same([...list.problems, ...detail.problems, ...dashboard.problems], [], 'no console errors');
  await Promise.all([list, detail, dashboard].map((p) => p.page.context().close()));
});

t.test('what changed before the page subscribed is shown once it has', async (t) => {
  const stopped = await server.call('POST', '/api/v1/services/file-writer/inbox/stop', { body: {} });
  t.equal(stopped.status, 200, stopped.raw);
  const late = await send('late.edi');
  const { page, problems } = await openPage(browser);
  // The page's subscription is held back until the message is delivered: no event for that
  // change reaches it, as when a message moves on while a loaded browser is still starting.
  let release!: () => void;
  const delivered = new Promise<void>((resolve) => (release = resolve));
  await page.route(
    (url) => url.pathname === '/ui/events',
    async (route) => {
      await delivered;
      await route.continue();
    },
  );
  const stream = page.waitForResponse((r) => new URL(r.url()).pathname === '/ui/events');
  await page.goto(`${server.url}/ui/messages/${late}`);
  t.notMatch(await textOf(page, '#message-status'), 'Delivered', 'not delivered when the page was made');
  const started = await server.call('POST', '/api/v1/services/file-writer/inbox/start', { body: {} });
  t.equal(started.status, 200, started.raw);
  await waitForMessage(server, late, (m) => m.status === 'Delivered', 'late.edi delivered');
  release();
  t.equal((await stream).status(), 200, 'the event stream opened after the delivery');
  await statusShown(page, 'Delivered', 15_000);
  t.pass('the page shows the delivery that happened before it subscribed');
  t.same(problems, [], 'no console errors');
  await page.context().close();
});
