// Covers two operator tasks end to end in a real browser, counting the page loads and form submissions each takes (docs/ui/README.md records them): stop and start an instance, and set up a webhook notifier and send it a test, received by a real HTTP server on 127.0.0.1.
import { createServer, type IncomingMessage } from 'node:http';
import path from 'node:path';
import type { Page } from 'playwright-core';
import t from 'tap';
import { must, tempDir } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { launchChromium, noViolations, openPage, shots, textOf } from './chromium.js';

const server = await startTestServer(t, { developerBuild: true, listen: true });
const base = server.url!;
const dir = await tempDir(t);
await must(server, '/plugins/configs?type=file-writer', {
  name: 'archive',
  directory: path.join(dir, 'out'),
});

/** The partner's side of a webhook: every request it receives, answered 204. */
const received: { method: string; headers: IncomingMessage['headers']; body: string }[] = [];
const hook = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
  request.on('end', () => {
    received.push({ method: request.method ?? '', headers: request.headers, body });
    response.writeHead(204).end();
  });
});
await new Promise<void>((done) => hook.listen(0, '127.0.0.1', done));
t.teardown(() => new Promise<void>((done) => hook.close(() => done())));
const hookUrl = `http://127.0.0.1:${(hook.address() as { port: number }).port}/pier-alerts`;

const browser = await launchChromium(t);

/** Page loads (a GET the person asked for) and form submissions (a POST), as a person counts them. */
function countSteps(page: Page): { loads: number; submissions: number } {
  const steps = { loads: 0, submissions: 0 };
  page.on('request', (request) => {
    if (!request.isNavigationRequest() || request.frame() !== page.mainFrame()) return;
    if (request.method() === 'POST') steps.submissions++;
    else if (!request.redirectedFrom()) steps.loads++;
  });
  return steps;
}

t.test('task: stop and start an instance', async (t) => {
  const { page, problems } = await openPage(browser);
  const steps = countSteps(page);
  await page.goto(`${base}/ui`);
  await page.click('nav.side a:has-text("Plugin instances")');
  await page.waitForSelector('h1:has-text("Plugin instances")');
  await page.click('button[aria-label="stop file-writer/archive"]');
  await page.waitForSelector('.alert-ok');
  t.match(await textOf(page, '.alert-ok'), 'stop file-writer/archive, now stopped');
  await page.screenshot({ path: path.join(shots, 'task-stop-instance.png') });
  await page.click('button[aria-label="start file-writer/archive"]');
  await page.waitForSelector('.alert-ok');
  t.match(await textOf(page, '.alert-ok'), 'start file-writer/archive, now running');
  const services = await server.call('GET', '/api/v1/services');
  const archive = services.body.data.find((s: { name: string }) => s.name === 'archive');
  t.equal(archive.status, 'running', 'the API agrees: running again');
  await noViolations(t, page, 'instances after start');
  t.same(steps, { loads: 2, submissions: 2 }, 'two page loads, two form submissions');
  t.comment(`stop and start an instance: ${steps.loads} page loads, ${steps.submissions} form submissions`);
  t.same(problems, []);
  await page.context().close();
});

t.test('task: set up a webhook and send a test', async (t) => {
  const { page, problems } = await openPage(browser);
  const steps = countSteps(page);
  await page.goto(`${base}/ui`);
  await page.click('nav.side a:has-text("Plugin instances")');
  await page.click('a[href="/ui/instances/new/notification-webhook"]');
  await page.waitForSelector('h1:has-text("New notification-webhook")');
  t.equal(await page.textContent('label[for="f-url"]'), 'URL', 'fields labelled for people');
  await page.fill('#f-name', 'ops-hook');
  await page.fill('#f-url', hookUrl);
  await page.selectOption('#f-min_severity', 'info');
  await page.screenshot({ path: path.join(shots, 'task-webhook-form.png'), fullPage: true });
  await page.click('button:has-text("Create")');
  await page.waitForSelector('h1:has-text("notification-webhook/ops-hook")');
  t.match(await textOf(page, '.alert-ok'), 'Saved.');
  await page.click('button:has-text("Send a test notification")');
  await page.waitForSelector('main .alert');
  t.match(await textOf(page, 'main .alert'), 'Test notification delivered');
  await page.screenshot({ path: path.join(shots, 'task-webhook-test.png') });
  await noViolations(t, page, 'webhook after the test');
  t.equal(received.length, 1, 'the webhook received one request');
  t.equal(received[0]!.method, 'POST');
  t.match(received[0]!.headers['content-type'], /^application\/json/);
  t.ok(received[0]!.headers['webhook-id'], 'a Standard Webhooks id');
  const body = JSON.parse(received[0]!.body) as Record<string, unknown>;
  t.match(JSON.stringify(body), /test/i, 'the body says it is a test');
  const log = await server.call('GET', '/api/v1/notifications?include_tests=true&instance=ops-hook');
  t.equal(log.body.data.notifications[0].outcome, 'delivered', 'the notification log agrees');
  t.same(steps, { loads: 3, submissions: 2 }, 'three page loads, two form submissions');
  t.comment(
    `set up a webhook and send a test: ${steps.loads} page loads, ${steps.submissions} form submissions`,
  );
  t.same(problems, []);
  await page.context().close();
});
