// Covers POST …/notification-webhook/{name}/test against a receiver that answers 500: the answer comes right after the first attempt (attempts 1, still queued, the error named), well before the first retry's wait ends, and the retries go on in the background until the row says failed.
import t from 'tap';
import { must, runningOn } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

const server = await startTestServer(t);
const receiver = await startReceiver(t);
receiver.otherwise = 500;
const retryIntervalSeconds = 2;
await must(server, '/plugins/configs?type=notification-webhook', {
  name: 'ops',
  url: receiver.url,
  max_attempts: 3,
  retry_interval: retryIntervalSeconds,
  retry_backoff: 1,
  timeout_seconds: 2,
});
await runningOn(server, 'notification-webhook', 'ops');
const host = new URL(receiver.url).host;

t.test('the answer follows the first attempt; the retries follow in the background', async (t) => {
  const answer = await server.call('POST', '/api/v1/plugins/configs/notification-webhook/ops/test');
  const answeredAt = performance.now();
  t.equal(answer.status, 200);
  t.match(answer.body.data, {
    test: true,
    code: 'test',
    instance: 'ops',
    outcome: 'queued',
    attempts: 1,
    last_error: `${host} answered HTTP 500 Internal Server Error`,
    delivered_at: null,
  });
  t.equal(receiver.received.length, 1, 'one attempt before the answer');
  // Timed from the attempt, not the request: the worker's thread starts first (run once for it).
  const afterAttemptMs = answeredAt - receiver.received[0]!.at;
  t.ok(
    afterAttemptMs < (retryIntervalSeconds * 1000) / 2,
    `answered ${Math.round(afterAttemptMs)} ms after the attempt`,
  );

  const row = async () =>
    (await server.call('GET', '/api/v1/notifications?include_tests=true')).body.data.notifications.find(
      (n: { id: number }) => n.id === answer.body.data.id,
    );
  const second = await waitFor(async () => {
    const r = await row();
    return r?.attempts === 2 && r;
  }, 'the second attempt recorded');
  t.match(second, { outcome: 'queued', last_error: `${host} answered HTTP 500 Internal Server Error` });
  const last = await waitFor(async () => {
    const r = await row();
    return r?.outcome === 'failed' && r;
  }, 'the row failed after its attempts');
  t.match(last, { attempts: 3, last_error: `${host} answered HTTP 500 Internal Server Error` });
  t.equal(receiver.received.length, 3);
});
