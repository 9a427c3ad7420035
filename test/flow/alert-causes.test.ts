// Covers alerts raised by their real causes in the message flow: a failing http-poster raises delivery_failed for each failed delivery (with the notification logged for a notifier), and more than 10 failed messages in 24 hours raise system_degraded once.
import t from 'tap';
import { sql } from '../helpers/database.js';
import { fileFlow, runningOn, must, parties, tempDir, upload, waitForMessage } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

const server = await startTestServer(t);
const dir = await tempDir(t);
await parties(server);
const partner = await startReceiver(t);
partner.otherwise = 403; // refuses every message: failed at once, no retries
await must(server, '/plugins/configs?type=http-poster', { name: 'erp', url: partner.url });
await fileFlow(server, dir, { target: 'erp' });
// A notifier that is configured but not running: its rows stay queued, which is what is checked.
await must(server, '/plugins/configs?type=notification-webhook', {
  name: 'ops',
  url: 'https://hooks.example/x',
});
await runningOn(server, 'http-poster', 'erp');

async function failOne(i: number): Promise<string> {
  const made = await upload(server, { from: 'acme', to: 'globex' }, { name: `f${i}.txt`, content: `${i}\n` });
  const id = made.body.data.id as string;
  await waitForMessage(server, id, (m) => m.status === 'Error', `message ${i} failed`);
  return id;
}

t.test('a failing http-poster raises delivery_failed', async (t) => {
  const id = await failOne(0);
  const alerts = await sql(
    server.db.url,
    "select * from alert where code = 'delivery_failed' and details->>'message_id' = $1",
    [id],
  );
  t.equal(alerts.length, 1);
  t.match(alerts[0], {
    severity: 'warning',
    subject_kind: 'delivery',
    instance: 'erp',
    dedupe_key: 'delivery_failed:erp',
    link: `/ui/messages/${id}`,
    summary: /failed: .*answered HTTP 403/,
  });
  const listed = await server.call('GET', '/api/v1/notifications?code=delivery_failed');
  t.match(listed.body.data.notifications, [{ instance: 'ops', outcome: 'queued', subject_id: String }]);
  t.notOk(await sql(server.db.url, "select 1 from alert where code = 'system_degraded'").then((r) => r[0]));
});

t.test('more than 10 failed messages in 24 hours raise system_degraded once', async (t) => {
  for (let i = 1; i <= 11; i++) await failOne(i);
  const degraded = await sql(server.db.url, "select * from alert where code = 'system_degraded'");
  t.equal(degraded.length, 1, 'raised once when the threshold was crossed');
  t.match(degraded[0], { severity: 'critical', details: { failed_last_24h: 11, threshold: 10 } });
  await failOne(12);
  t.equal(
    (await sql(server.db.url, "select * from alert where code = 'system_degraded'")).length,
    1,
    'not again',
  );
  const stats = await server.call('GET', '/api/v1/stats');
  t.match(stats.body.data, { failed_last_24h: 13, system_status: 'Degraded' });
});
