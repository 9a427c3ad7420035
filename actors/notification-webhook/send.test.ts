// Covers sending one notification to a real HTTP receiver on 127.0.0.1: Standard Webhooks signatures verified with the `standardwebhooks` package, retries after 500, a per-attempt timeout on a receiver that hangs, failure after the attempts on refusal, no retry on 4xx, both secrets signing during a rotation's overlap (and only the new one after it), and the json, Slack and Teams bodies against their documented shapes.
import { createServer, type AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import t from 'tap';
import type { NotificationJob } from '../../protocol/notify-protocol.js';
import { startReceiver } from '../../test/helpers/webhook-receiver.js';
import { notificationWebhookType, type NotificationWebhookSettings } from './config.js';
import { sendNotification } from './send.js';

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const settings = (over: Partial<NotificationWebhookSettings> = {}): NotificationWebhookSettings => ({
  ...(notificationWebhookType.defaults as unknown as NotificationWebhookSettings),
  retry_interval: 1,
  max_attempts: 3,
  timeout_seconds: 1,
  ...over,
});
const alert = {
  alert_id: 7,
  code: 'delivery_failed',
  severity: 'warning' as const,
  subject_kind: 'delivery',
  subject_id: '12',
  subject_name: 'msg/out',
  summary: 'Delivery of message m to out failed',
  details: { target: 'out' },
  dedupe_key: 'delivery_failed:out',
  link: 'https://pier.example/api/v1/messages/m',
  raised_at: '2026-06-01T08:00:00.000Z',
  instance: 'http-poster:out',
  resolves: null,
};
const job = (over: Partial<NotificationJob> = {}): NotificationJob => ({
  notification_id: 41,
  grouped: [],
  test: false,
  alerts: [alert],
  ...over,
});
/** Waits between attempts are recorded and skipped, so the test does not sleep through them. */
const waits: number[] = [];
const options = { userAgent: 'pier-test', sleep: async (ms: number) => void waits.push(ms) };

t.test('a signed json body that standardwebhooks verifies; 500 then 200 is retried', async (t) => {
  const receiver = await startReceiver(t);
  receiver.answers = [500, 200];
  waits.length = 0;
  const outcome = await sendNotification(
    // A timeout well above the answer's time: a busy machine must not turn 500-then-200 into a third try.
    settings({ timeout_seconds: 30 }),
    { url: receiver.url, signing_secret: secret },
    job(),
    options,
  );
  t.same(outcome, { ok: true, attempts: 2 });
  t.same(waits, [1000], 'waited retry_interval before the second attempt');
  t.equal(receiver.received.length, 2);
  const verifier = new Webhook(secret);
  for (const r of receiver.received) {
    const payload = verifier.verify(r.body, r.headers as Record<string, string>) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    t.match(payload, { type: 'pier.alert', data: { notification_id: 41, test: false, alerts: [alert] } });
    t.match(payload.timestamp, /^\d{4}-/);
  }
  t.equal(
    receiver.received[0]!.headers['webhook-id'],
    receiver.received[1]!.headers['webhook-id'],
    'same id on retry',
  );
  t.throws(
    () =>
      new Webhook('whsec_' + Buffer.from('another key of 24 bytes!').toString('base64')).verify(
        receiver.received[0]!.body,
        receiver.received[0]!.headers as Record<string, string>,
      ),
    'another secret does not verify',
  );
  const tampered = receiver.received[0]!.body.replace('out', 'in');
  t.throws(() => verifier.verify(tampered, receiver.received[0]!.headers as Record<string, string>));
});

t.test("during a rotation's overlap both secrets sign; after it only the new one", async (t) => {
  const receiver = await startReceiver(t);
  const fresh = 'whsec_' + Buffer.from('the new key of 24 bytes!').toString('base64');
  const at = new Date();
  const rotated = (until: Date) => ({
    url: receiver.url,
    signing_secret: fresh,
    signing_secret_previous: { value: secret, until: until.toISOString() },
  });
  const headersOf = (i: number) => receiver.received[i]!.headers as Record<string, string>;
  const verifies = (key: string, i: number) => {
    try {
      new Webhook(key).verify(receiver.received[i]!.body, headersOf(i));
      return true;
    } catch {
      return false;
    }
  };

  await sendNotification(settings(), rotated(new Date(at.getTime() + 60_000)), job(), {
    ...options,
    now: () => at,
  });
  t.match(headersOf(0)['webhook-signature'], /^v1,\S+ v1,\S+$/, 'two space-separated signatures');
  t.ok(verifies(fresh, 0), 'a receiver that has the new secret verifies');
  t.ok(verifies(secret, 0), 'a receiver still on the old secret verifies');

  await sendNotification(settings(), rotated(at), job(), { ...options, now: () => at });
  t.match(headersOf(1)['webhook-signature'], /^v1,\S+$/, 'one signature once the overlap ended');
  t.ok(verifies(fresh, 1), 'the new secret verifies');
  t.notOk(verifies(secret, 1), 'the old secret no longer does');
});

t.test('a receiver that hangs: each attempt times out, then failed', async (t) => {
  const receiver = await startReceiver(t);
  receiver.otherwise = 'hang';
  waits.length = 0;
  const outcome = await sendNotification(
    settings({ max_attempts: 2 }),
    { url: receiver.url },
    job(),
    options,
  );
  t.same(outcome, {
    ok: false,
    attempts: 2,
    error: `No answer from ${new URL(receiver.url).host} within 1 s`,
  });
  t.equal(receiver.received.length, 2);
});

t.test('refusal: a closed port fails after the attempts with growing waits', async (t) => {
  // A port that was just free: nothing listens there.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const url = `http://127.0.0.1:${port}/hook`;
  waits.length = 0;
  const outcome = await sendNotification(
    settings({ max_attempts: 4, retry_backoff: 3 }),
    { url, headers: [{ name: 'X-Token', value: 'hidden' }] },
    job(),
    options,
  );
  t.same(outcome, { ok: false, attempts: 4, error: `Could not reach 127.0.0.1:${port}: ECONNREFUSED` });
  t.same(waits, [1000, 3000, 9000], 'each wait three times the one before');
  t.notMatch(outcome.error!, /hook|hidden/, 'neither the path nor a header value in the error');
});

t.test('a 4xx answer is not retried; headers and basic auth are sent', async (t) => {
  const receiver = await startReceiver(t);
  receiver.otherwise = 404;
  const outcome = await sendNotification(
    settings({ basic_username: 'ops' }),
    { url: receiver.url, basic_password: 'pw', headers: [{ name: 'X-Team', value: 'b2b' }] },
    job(),
    options,
  );
  t.match(outcome, { ok: false, attempts: 1, error: /answered HTTP 404/ });
  t.equal(receiver.received[0]!.headers['x-team'], 'b2b');
  t.equal(receiver.received[0]!.headers.authorization, `Basic ${Buffer.from('ops:pw').toString('base64')}`);
  t.equal(receiver.received[0]!.headers['webhook-signature'], undefined, 'unsigned without a secret');
});

t.test('Slack: an incoming-webhook message with Block Kit blocks', async (t) => {
  const receiver = await startReceiver(t);
  const grouped = job({
    alerts: [alert, { ...alert, alert_id: 8, subject_name: 'msg2/out' }],
    grouped: [40],
  });
  await sendNotification(settings({ format: 'slack' }), { url: receiver.url }, grouped, options);
  const body = JSON.parse(receiver.received[0]!.body);
  // https://api.slack.com/messaging/webhooks, https://api.slack.com/reference/block-kit/blocks
  t.type(body.text, 'string', 'text: the fallback for notifications');
  t.ok(Array.isArray(body.blocks) && body.blocks.length <= 50);
  t.match(body.blocks[0], { type: 'header', text: { type: 'plain_text', text: /2 alerts delivery_failed/ } });
  t.ok(body.blocks[0].text.text.length <= 150, 'a header text is at most 150 characters');
  t.match(body.blocks[1], { type: 'section', text: { type: 'mrkdwn', text: /msg\/out[\s\S]*msg2\/out/ } });
  t.ok(body.blocks[1].text.text.length <= 3000);
  t.match(body.blocks[2], { type: 'context', elements: [{ type: 'mrkdwn', text: String }] });
  t.match(
    body.blocks[1].text.text,
    /<https:\/\/pier\.example\/api\/v1\/messages\/m\|open>/,
    'links in Slack syntax',
  );
});

t.test('Teams: a message carrying one Adaptive Card', async (t) => {
  const receiver = await startReceiver(t);
  await sendNotification(settings({ format: 'teams' }), { url: receiver.url }, job({ test: true }), options);
  const body = JSON.parse(receiver.received[0]!.body);
  // https://learn.microsoft.com/microsoftteams/platform/webhooks-and-connectors/how-to/connectors-using
  t.equal(body.type, 'message');
  t.equal(body.attachments.length, 1);
  const attachment = body.attachments[0];
  t.equal(attachment.contentType, 'application/vnd.microsoft.card.adaptive');
  t.match(attachment.content, {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: String,
    body: [
      { type: 'TextBlock', text: '[test] Delivery of message m to out failed', wrap: true },
      { type: 'FactSet', facts: [{ title: 'delivery_failed', value: String }] },
    ],
    actions: [{ type: 'Action.OpenUrl', url: alert.link }],
  });
});
