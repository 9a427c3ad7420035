// Covers a webhook notification sent through a real HTTP proxy (Debian's tinyproxy on loopback)
// named by the notifier's proxy_url with write-only credentials: delivered and signed as without
// it, the proxy's log naming the tunnel, and refused by the proxy without credentials.
import { Webhook } from 'standardwebhooks';
import t from 'tap';
import type { NotificationJob } from '../../protocol/notify-protocol.js';
import { startTinyproxy, tinyproxyPath } from '../../test/helpers/tinyproxy.js';
import { startReceiver } from '../../test/helpers/webhook-receiver.js';
import { notificationWebhookType, type NotificationWebhookSettings } from './config.js';
import { sendNotification } from './send.js';

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const job: NotificationJob = {
  notification_id: 5,
  grouped: [],
  test: true,
  alerts: [
    {
      alert_id: 1,
      code: 'delivery_failed',
      severity: 'warning',
      subject_kind: 'delivery',
      subject_id: '1',
      subject_name: 'msg/out',
      summary: 'Delivery failed',
      details: {},
      dedupe_key: 'delivery_failed:out',
      link: 'https://pier.example/api/v1/messages/m',
      raised_at: '2026-06-01T08:00:00.000Z',
      instance: 'http-poster:out',
      resolves: null,
    },
  ],
};
const settings = (over: Partial<NotificationWebhookSettings>): NotificationWebhookSettings => ({
  ...(notificationWebhookType.defaults as unknown as NotificationWebhookSettings),
  max_attempts: 1,
  timeout_seconds: 10,
  ...over,
});
const options = { userAgent: 'pier-test', sleep: async () => {} };

if (!tinyproxyPath()) {
  const why = 'tinyproxy is not installed (apt-get install tinyproxy): the proxy is not tested here';
  if (process.env.CI) t.fail(why);
  else t.comment(why);
} else {
  const proxy = (await startTinyproxy(t, { user: 'pier', password: 'proxy-Secret-4' }))!;

  t.test('through the notifier’s proxy with credentials', async (t) => {
    const receiver = await startReceiver(t);
    receiver.answers = [200];
    const outcome = await sendNotification(
      settings({ proxy_url: proxy.url, proxy_username: 'pier' }),
      { url: receiver.url, signing_secret: secret, proxy_password: 'proxy-Secret-4' },
      job,
      options,
    );
    t.same(outcome, { ok: true, attempts: 1 });
    const received = receiver.received[0]!;
    t.ok(new Webhook(secret).verify(received.body, received.headers as Record<string, string>), 'signed');
    // undici tunnels plain HTTP too (CONNECT), so the proxy sees the address, not the path.
    t.match(await proxy.log(), `CONNECT ${new URL(receiver.url).host}`, 'the proxy passed it on');
  });

  t.test('without the credentials the proxy refuses, and the error names the proxy', async (t) => {
    const receiver = await startReceiver(t);
    const outcome = await sendNotification(
      settings({ proxy_url: proxy.url }),
      { url: receiver.url, signing_secret: secret },
      job,
      options,
    );
    t.equal(outcome.ok, false);
    t.match(outcome.error, `through the proxy ${proxy.url}`);
    t.equal(receiver.received.length, 0);
  });
}
