// Covers partner_unreachable over real HTTP: a partner that stops answering is alerted after the configured failed attempts in a row, or the configured time after a first failure, whichever comes first, with a webhook notification linking to the web UI page where it is fixed; /stats lists it as open; its end is raised and notified when the partner is back and a delivery succeeds.
import { createServer, type Server } from 'node:http';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { sql } from '../helpers/database.js';
import { fileFlow, must, parties, runningOn, tempDir, waitForMessages } from '../helpers/flow.js';
import type { Message } from '../helpers/flow.js';
import { freePort } from '../helpers/free-port.js';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

/** A partner on a fixed port that the test stops and starts again. */
function partnerOn(port: number) {
  let server: Server | undefined;
  return {
    start: () =>
      new Promise<void>((resolve) => {
        server = createServer((request, response) => {
          request.resume();
          request.on('end', () => response.writeHead(200).end('ok'));
        });
        server.listen(port, '127.0.0.1', resolve);
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (!server) return resolve();
        server.closeAllConnections();
        server.close(() => resolve());
        server = undefined;
      }),
  };
}

const server = await startTestServer(t, { env: { PUBLIC_URL: 'https://pier.example' } });
const hooks = await startReceiver(t);
const dir = await tempDir(t);
await parties(server);
await must(server, '/partners', { name: 'initech' });
const erpPort = await freePort();
const erp = partnerOn(erpPort);
await erp.start();
t.teardown(() => erp.stop());
// Nothing ever listens here: the partner of the second test is down from the start.
const deadPort = await freePort();

await must(server, '/plugins/configs?type=notification-webhook', {
  name: 'ops',
  url: hooks.url,
  min_severity: 'warning',
  group_window_seconds: 0,
  max_attempts: 2,
  retry_interval: 1,
});
await runningOn(server, 'notification-webhook', 'ops');
await must(server, '/plugins/configs?type=http-poster', {
  name: 'erp',
  url: `http://127.0.0.1:${erpPort}/in`,
  retry_interval: 1,
  retry_backoff: 1,
  max_attempts: 100,
  unreachable_alert_attempts: 3,
  unreachable_alert_seconds: 60,
});
await must(server, '/plugins/configs?type=http-poster', {
  name: 'slow',
  url: `http://127.0.0.1:${deadPort}/in`,
  retry_interval: 3600,
  max_attempts: 5,
  unreachable_alert_attempts: 100,
  unreachable_alert_seconds: 10,
});
await mkdir(path.join(dir, 'in', 'globex'), { recursive: true });
await mkdir(path.join(dir, 'in', 'initech'), { recursive: true });
await fileFlow(server, dir, { poller: { polling_interval: 1 }, target: 'erp' });
await must(server, '/routes', { source_plugin: 'in', from: 'acme', to: 'initech', target_plugin: 'slow' });
for (const name of ['erp', 'slow', 'in']) {
  const type = name === 'in' ? 'file-poller' : 'http-poster';
  await runningOn(server, type, name);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Row = Record<string, any>;
const alerts = (code: string) =>
  sql<Row>(server.db.url, 'select * from alert where code = $1 order by id', [code]);
/** The alerts the webhook receiver got, by code. */
const hooked = (code: string) =>
  hooks.received
    .map((r) => JSON.parse(r.body) as { data: { alerts: { code: string; link: string; summary: string }[] } })
    .flatMap((b) => b.data.alerts)
    .filter((a) => a.code === code);
const openAlerts = async () =>
  (await server.call('GET', '/api/v1/stats')).body.data.open_alerts as { code: string; link: string }[];
const delivered = (name: string) => (l: Message[]) =>
  l.find((m: Message) => m.file_name === name && m.status === 'Delivered');

t.test(
  'a partner that stops answering is alerted after 3 failed attempts, and its return ends it',
  async (t) => {
    await writeFile(path.join(dir, 'in', 'globex', 'before.edi'), 'UNB+BEFORE');
    await waitForMessages(
      server,
      '',
      (l) => !!delivered('before.edi')(l),
      'delivered while the partner is up',
    );
    t.same(await alerts('partner_unreachable'), [], 'no alert while the partner answers');

    await erp.stop();
    const stopped = Date.now();
    await writeFile(path.join(dir, 'in', 'globex', 'during.edi'), 'UNB+DURING');
    // Three attempts one second apart: about two seconds after the first; well within the minute.
    const [alert] = await waitFor(
      async () => {
        const rows = await alerts('partner_unreachable');
        return rows.length > 0 ? rows : false;
      },
      'partner_unreachable raised',
      15_000,
    );
    t.ok(Date.now() - stopped < 15_000, 'raised within seconds, not after the retries run out');
    t.match(alert, {
      severity: 'critical',
      subject_kind: 'plugin-instance',
      subject_id: 'http-poster:erp',
      instance: 'http-poster:erp',
      link: '/ui/instances/http-poster/erp',
      summary: /cannot be reached: 3 attempts failed in a row .*ECONNREFUSED/,
    });
    t.match(alert!.details, { failed_attempts: 3, last_error: /ECONNREFUSED/ });
    const [notified] = await waitFor(() => {
      const got = hooked('partner_unreachable');
      return got.length > 0 ? got : false;
    }, 'the webhook told of it');
    t.equal(
      notified!.link,
      'https://pier.example/ui/instances/http-poster/erp',
      'the link is the web UI page',
    );
    t.match(await openAlerts(), [
      { code: 'partner_unreachable', link: 'https://pier.example/ui/instances/http-poster/erp' },
    ]);
    // More failures are the same standing condition, not another alert.
    await new Promise((r) => setTimeout(r, 2_000));
    t.equal((await alerts('partner_unreachable')).length, 1, 'one alert while it stands');

    await erp.start();
    await waitForMessages(
      server,
      '',
      (l) => !!delivered('during.edi')(l),
      'delivered once the partner is back',
    );
    const [ended] = await waitFor(async () => {
      const rows = await alerts('partner_reachable');
      return rows.length > 0 ? rows : false;
    }, 'partner_reachable raised');
    t.match(ended, { subject_id: 'http-poster:erp', summary: /can be reached again/ });
    await waitFor(() => hooked('partner_reachable').length > 0, 'the webhook told of the end');
    t.same(
      (await openAlerts()).filter((a) => a.code === 'partner_unreachable'),
      [],
      'no longer open',
    );
    t.equal((await alerts('partner_reachable')).length, 1, 'ended once');
  },
);

t.test(
  'a partner down with one attempt and a long retry wait is alerted after the configured time',
  async (t) => {
    const written = Date.now();
    await writeFile(path.join(dir, 'in', 'initech', 'one.edi'), 'UNB+ONE');
    await waitForMessages(
      server,
      '',
      (l) => l.some((m: Message) => m.file_name === 'one.edi' && m.status === 'Retrying'),
      'the first attempt failed',
    );
    t.same(
      (await alerts('partner_unreachable')).filter((a) => a.subject_id === 'http-poster:slow'),
      [],
      'one failure is not yet an alert',
    );
    const rows = await waitFor(
      async () => {
        const found = (await alerts('partner_unreachable')).filter(
          (a) => a.subject_id === 'http-poster:slow',
        );
        return found.length > 0 ? found : false;
      },
      'partner_unreachable for slow',
      20_000,
    );
    const after = Date.now() - written;
    t.ok(after >= 9_000 && after < 20_000, `raised after the configured 10 s (${after} ms)`);
    t.match(rows[0], { summary: /1 attempt failed in a row/, details: { failed_attempts: 1 } });
    await waitFor(
      () => hooks.received.some((r) => r.body.includes('http-poster:slow')),
      'the webhook told of it',
    );
  },
);
