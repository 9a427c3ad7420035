// Covers alerts reaching a running notification-webhook instance (a worker thread) and the notification log: delivery verified with standardwebhooks, cooldown and grouping with an injectable clock, an alert raised once when two processes see its cause, GET /notifications with every filter, and POST …/notification-webhook/{name}/test delivered or failed.
import { createServer, type AddressInfo } from 'node:net';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Webhook } from 'standardwebhooks';
import t from 'tap';
import { raiseAlert, type AlertInput } from '../../flow/alerts/alerts.js';
import { sql } from '../helpers/database.js';
import { runningOn, must } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { SharedClock } from '../../protocol/clock.js';

const clock = SharedClock.stoppedAt(Date.parse('2026-06-01T08:00:00.000Z'));
const server = await startTestServer(t, {
  clock,
  env: { PUBLIC_URL: 'https://pier.example' },
});
const receiver = await startReceiver(t);
const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
await must(server, '/plugins/configs?type=notification-webhook', {
  name: 'ops',
  url: receiver.url,
  signing_secret: secret,
  min_severity: 'info',
  cooldown_seconds: 600,
  group_window_seconds: 60,
  max_attempts: 2,
  retry_interval: 1,
  timeout_seconds: 2,
});
await runningOn(server, 'notification-webhook', 'ops');
const em = () => server.ctx.orm.em.fork() as EntityManager;
const raise = (alert: Partial<AlertInput> & { subject_id: string }) =>
  raiseAlert(
    em(),
    {
      code: 'delivery_failed',
      subject_kind: 'delivery',
      subject_name: `delivery ${alert.subject_id}`,
      summary: `Delivery ${alert.subject_id} failed`,
      link: `/api/v1/messages/m-${alert.subject_id}`,
      ...alert,
    },
    clock.now(),
  );
const rows = (alertId: number) =>
  sql(server.db.url, 'select * from notification where alert_id = $1 order by id', [alertId]);
const outcome = async (alertId: number, wanted: string) =>
  waitFor(async () => (await rows(alertId))[0]?.outcome === wanted, `notification of ${alertId} ${wanted}`);
const verifier = new Webhook(secret);
const verified = (i: number) =>
  verifier.verify(receiver.received[i]!.body, receiver.received[i]!.headers as Record<string, string>) as any; // eslint-disable-line @typescript-eslint/no-explicit-any

t.test('an alert is posted to the running notifier, signed', async (t) => {
  const id = await raise({ subject_id: '1', dedupe_key: 'delivery_failed:out' });
  await outcome(id, 'delivered');
  const [row] = await rows(id);
  t.match(row, { instance: 'ops', format: 'json', attempts: 1, last_error: null, test: false });
  t.equal(receiver.received.length, 1);
  t.match(verified(0), {
    type: 'pier.alert',
    data: {
      alerts: [
        {
          alert_id: id,
          code: 'delivery_failed',
          severity: 'warning',
          link: 'https://pier.example/api/v1/messages/m-1',
        },
      ],
    },
  });
});

t.test('cooldown: the same dedupe key within the cooldown is suppressed, after it sent again', async (t) => {
  clock.advance(2 * 60_000);
  const again = await raise({ subject_id: '2', dedupe_key: 'delivery_failed:out' });
  t.match(await rows(again), [{ outcome: 'suppressed_cooldown' }]);
  clock.advance(9 * 60_000); // 11 minutes after the first
  const later = await raise({ subject_id: '3', dedupe_key: 'delivery_failed:out' });
  await outcome(later, 'delivered');
  t.equal(receiver.received.length, 2, 'nothing was sent for the suppressed one');
});

t.test(
  'grouping: a burst of one code is the first alert, then one notification listing the rest',
  async (t) => {
    clock.advance(60 * 60_000);
    const start = clock.now().getTime();
    const first = await raise({ code: 'mdn_overdue', subject_kind: 'message', subject_id: 'a' });
    await outcome(first, 'delivered');
    clock.set(start + 5_000);
    const second = await raise({ code: 'mdn_overdue', subject_kind: 'message', subject_id: 'b' });
    clock.set(start + 10_000);
    const third = await raise({ code: 'mdn_overdue', subject_kind: 'message', subject_id: 'c' });
    const sent = receiver.received.length;
    server.ctx.runtime!.supervisor.poke('ops');
    await new Promise((r) => setTimeout(r, 300));
    t.equal(receiver.received.length, sent, 'held while the window lasts');
    t.match(await rows(second), [{ outcome: 'queued' }]);
    clock.set(start + 61_000);
    server.ctx.runtime!.supervisor.poke('ops');
    await outcome(third, 'delivered');
    const [carried] = await rows(second);
    const [carrier] = await rows(third);
    t.match(carried, { outcome: 'grouped', grouped_into: carrier!.id });
    t.equal(receiver.received.length, sent + 1, 'one notification for both');
    t.same(
      verified(sent).data.alerts.map((a: { alert_id: number }) => a.alert_id),
      [second, third],
    );
  },
);

t.test('raised once in a cluster: two processes seeing the same cause store one alert', async (t) => {
  clock.advance(60 * 60_000);
  const cause = {
    code: 'storage_failed' as const,
    subject_kind: 'storage',
    subject_id: 'local',
  };
  const ids = await Promise.all([raise(cause), raise(cause), raise(cause)]);
  t.equal(new Set(ids).size, 1);
  const [counted] = await sql(
    server.db.url,
    "select count(*)::int as n from alert where code = 'storage_failed'",
  );
  t.equal(counted!.n, 1);
  await outcome(ids[0]!, 'delivered');
});

t.test('GET /notifications: filters, order, paging, unknown parameters', async (t) => {
  const list = async (query = '') => server.call('GET', `/api/v1/notifications${query}`);
  const all = await list();
  t.equal(all.status, 200);
  t.equal(all.body.data.limit, 50);
  t.equal(all.body.data.total, 7);
  const times = all.body.data.notifications.map((n: { alert_time: string }) => n.alert_time);
  t.same(times, [...times].sort().reverse(), 'newest alert first');
  t.match(all.body.data.notifications[0], {
    code: 'storage_failed',
    severity: 'critical',
    subject_id: 'local',
    instance: 'ops',
    format: 'json',
    test: false,
    outcome: 'delivered',
    attempts: 1,
    link: /^https:\/\/pier\.example\//,
  });
  const count = async (query: string) => (await list(query)).body.data.total;
  t.equal(await count('?severity=critical'), 1);
  t.equal(await count('?code=mdn_overdue'), 3);
  t.equal(await count('?outcome=suppressed_cooldown'), 1);
  t.equal(await count('?outcome=grouped'), 1);
  t.equal(await count('?instance=ops'), 7);
  t.equal(await count('?instance=nobody'), 0);
  t.equal(
    await count('?from=2026-06-01T08:00:00Z&to=2026-06-01T08:05:00Z'),
    2,
    'from inclusive, to exclusive',
  );
  t.equal(await count('?to=2026-06-01'), 7, 'a date as to includes its whole day');
  t.equal(await count('?from=2026-06-02'), 0);
  t.equal(await count('?code=delivery_failed&outcome=delivered'), 2, 'filters combine');
  t.equal((await list('?limit=2&offset=1')).body.data.notifications.length, 2);
  const unknown = await list('?colour=red');
  t.equal(unknown.status, 400);
  t.same(unknown.body.error.details, { colour: 'Unknown parameter' });
  for (const bad of [
    'severity=loud',
    'code=nope',
    'outcome=lost',
    'from=yesterday',
    'include_tests=yes',
    'limit=0',
  ]) {
    const r = await list(`?${bad}`);
    t.equal(r.status, 400, bad);
    t.ok(r.body.error.details[bad.split('=')[0]!], `names ${bad.split('=')[0]}`);
  }
});

t.test('POST …/notification-webhook/{name}/test: delivered, or failed with the reason', async (t) => {
  const sent = receiver.received.length;
  const test = await server.call('POST', '/api/v1/plugins/configs/notification-webhook/ops/test');
  t.equal(test.status, 200);
  t.match(test.body.data, { test: true, outcome: 'delivered', attempts: 1, code: 'test', instance: 'ops' });
  t.equal(receiver.received.length, sent + 1);
  t.match(verified(sent), { type: 'pier.alert.test', data: { test: true } });
  t.equal((await server.call('GET', '/api/v1/notifications')).body.data.total, 7, 'hidden from the list');
  const withTests = await server.call('GET', '/api/v1/notifications?include_tests=true');
  t.equal(withTests.body.data.total, 8);
  t.equal(withTests.body.data.notifications[0].id, test.body.data.id);

  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  await must(server, '/plugins/configs?type=notification-webhook', {
    name: 'dead',
    url: `http://127.0.0.1:${port}/x`,
    format: 'slack',
    max_attempts: 2,
    retry_interval: 1,
  });
  const failed = await server.call('POST', '/api/v1/plugins/configs/notification-webhook/dead/test');
  // Answered after the first attempt; the second follows in the background.
  t.match(failed.body.data, {
    test: true,
    outcome: 'queued',
    format: 'slack',
    attempts: 1,
    last_error: `Could not reach 127.0.0.1:${port}: ECONNREFUSED`,
  });
  const [final] = await waitFor(async () => {
    const r = await sql(server.db.url, 'select * from notification where id = $1', [failed.body.data.id]);
    return r[0]?.outcome === 'failed' && r;
  }, 'the test notification failed');
  t.match(final, { attempts: 2, last_error: `Could not reach 127.0.0.1:${port}: ECONNREFUSED` });
  const missing = await server.call('POST', '/api/v1/plugins/configs/notification-webhook/ghost/test');
  t.equal(missing.status, 404);
});
