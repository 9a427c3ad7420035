// Covers the alert metrics after real alerts: a running notification-webhook delivering one notification and failing another (counted by notifier and outcome), alerts raised counted by code and severity once per cluster, and a storage failure open until its end is raised.
import type { EntityManager } from '@mikro-orm/postgresql';
import t from 'tap';
import { raiseAlert, type AlertInput } from '../../flow/alerts/alerts.js';
import { must, runningOn } from '../helpers/flow.js';
import { valueOf } from '../helpers/prometheus-text.js';
import { scrapeUntil } from '../helpers/scrape.js';
import { startTestServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

const server = await startTestServer(t, { env: { METRICS_PORT: '0' } });
const receiver = await startReceiver(t);
await must(server, '/plugins/configs?type=notification-webhook', {
  name: 'ops',
  url: receiver.url,
  signing_secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  min_severity: 'info',
  cooldown_seconds: 0,
  group_window_seconds: 0,
  max_attempts: 1,
  timeout_seconds: 2,
});
await runningOn(server, 'notification-webhook', 'ops');
const raise = (alert: Pick<AlertInput, 'code' | 'subject_kind'> & { subject_id: string }) =>
  raiseAlert(server.ctx.orm.em.fork() as EntityManager, {
    subject_name: alert.subject_id,
    summary: `${alert.code} ${alert.subject_id}`,
    ...alert,
  });

t.test('notifications by outcome, alerts raised and open', async (t) => {
  // The first notification is taken; every one after it gets a 500.
  receiver.answers = [200];
  receiver.otherwise = 500;
  await raise({ code: 'delivery_failed', subject_kind: 'delivery', subject_id: '1' });
  await scrapeUntil(
    server,
    (m) => valueOf(m, 'pier_notifications_total', { notifier: 'ops', outcome: 'delivered' }) === 1,
    'the first notification delivered',
  );
  await raise({ code: 'delivery_failed', subject_kind: 'delivery', subject_id: '2' });
  await raise({ code: 'storage_failed', subject_kind: 'storage', subject_id: 'local' });
  const m = await scrapeUntil(
    server,
    (m) => valueOf(m, 'pier_notifications_total', { notifier: 'ops', outcome: 'failed' }) === 2,
    'two notifications failed',
  );
  t.equal(valueOf(m, 'pier_notifications_total', { notifier: 'ops', outcome: 'delivered' }), 1);
  t.equal(valueOf(m, 'pier_alerts_raised', { code: 'delivery_failed', severity: 'warning' }), 2);
  t.equal(valueOf(m, 'pier_alerts_raised', { code: 'storage_failed', severity: 'critical' }), 1);
  t.equal(valueOf(m, 'pier_alerts_open', { code: 'storage_failed' }), 1, 'the storage failure is open');

  await raise({ code: 'storage_recovered', subject_kind: 'storage', subject_id: 'local' });
  const after = await scrapeUntil(
    server,
    (m) => valueOf(m, 'pier_alerts_open', { code: 'storage_failed' }) === 0,
    'the storage failure ended',
  );
  t.equal(valueOf(after, 'pier_alerts_raised', { code: 'storage_recovered', severity: 'critical' }), 1);
});
