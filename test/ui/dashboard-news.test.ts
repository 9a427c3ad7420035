// Covers what the dashboard and the notification log tell an operator who has set up no notifier:
// both say that alerts reach nobody and link to making an e-mail or webhook notifier; the
// dashboard's "Recent alerts" lists the alerts raised (not the notifications, of which there
// are none), and a message retrying on a refused connection shows as "retrying: 1" beside a
// system status that still says Healthy. Once a notifier exists, the notice is gone.
import t from 'tap';
import { raiseAlert } from '../../flow/alerts/alerts.js';
import { must, parties, runningOn, upload, waitForMessage } from '../helpers/flow.js';
import { freePort } from '../helpers/free-port.js';
import { startTestServer } from '../helpers/server.js';
import { launchChromium, noSeriousViolations, openPage } from './chromium.js';

const server = await startTestServer(t, { developerBuild: true, listen: true });
const base = server.url!;
await parties(server);
// A partner whose port refuses: the delivery waits a minute before its second attempt.
await must(server, '/plugins/configs?type=http-poster', {
  name: 'erp',
  url: `http://127.0.0.1:${await freePort()}/in`,
  retry_interval: 60,
});
await runningOn(server, 'http-poster', 'erp');
const browser = await launchChromium(t);

t.test('no notifier: both pages say so; alerts and retries are shown anyway', async (t) => {
  const made = await upload(
    server,
    { from: 'acme', to: 'globex', target: 'erp' },
    { name: 'order.txt', content: 'x\n' },
  );
  await waitForMessage(server, made.body.data.id, (m) => m.status === 'Retrying', 'the message retrying');
  await raiseAlert(server.ctx.orm.em.fork() as never, {
    code: 'certificate_expiring',
    subject_kind: 'certificate',
    subject_id: '1',
    subject_name: 'our key',
    summary: 'Certificate our key expires in 9 days',
    dedupe_key: 'certificate_expiring:1',
  });

  const { page, problems } = await openPage(browser);
  await page.goto(`${base}/ui`);
  t.match(await page.textContent('.system'), /System status:\s*Healthy\s*retrying: 1/);
  t.equal(await page.getAttribute('#retrying', 'href'), '/ui/messages?status=Retrying');
  t.match(await page.textContent('#no-notifier'), 'No notifier is set up');
  t.equal(await page.getAttribute('#no-notifier a >> nth=0', 'href'), '/ui/instances/new/notification-email');
  const recent = await page.textContent('section[aria-labelledby="alerts-heading"] table');
  t.match(recent, 'Certificate our key expires in 9 days', 'the alert is listed without any notifier');
  await noSeriousViolations(t, page, 'dashboard without a notifier');

  await page.goto(`${base}/ui/notifications`);
  t.match(await page.textContent('#no-notifier'), 'alerts are shown in the web UI only');
  t.same(problems, [], 'no console errors');
  await page.context().close();
});

t.test('with a notifier, the notice is gone', async (t) => {
  await must(server, '/plugins/configs?type=notification-webhook', {
    name: 'ops',
    url: 'https://hooks.example/x',
  });
  const { page } = await openPage(browser);
  await page.goto(`${base}/ui`);
  t.equal(await page.$('#no-notifier'), null);
  await page.goto(`${base}/ui/notifications`);
  t.equal(await page.$('#no-notifier'), null);
  await page.context().close();
});
