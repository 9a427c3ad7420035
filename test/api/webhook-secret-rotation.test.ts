// Covers rotating a notification-webhook's signing secret over the API: after PUT with a new secret, the test notification carries a signature by the new and by the replaced secret, each verified with the `standardwebhooks` package; after signing_secret_overlap_hours only the new one signs; an overlap of 0 switches at once; a change of url drops the replaced secret; neither secret is ever returned, and the kept one cannot be sent.
import { Webhook } from 'standardwebhooks';
import t from 'tap';
import { must } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { startReceiver, type Received } from '../helpers/webhook-receiver.js';
import { SharedClock } from '../../protocol/clock.js';

/** How far the injected clock is from the real one; rotations are dated by it. */
const clock = SharedClock.ahead(0);
const server = await startTestServer(t, { clock });
const receiver = await startReceiver(t);
const other = await startReceiver(t);
const key = (text: string) => 'whsec_' + Buffer.from(text.padEnd(24, '.')).toString('base64');
const first = key('first key');
const second = key('second key');
const third = key('third key');
const fourth = key('fourth key');
const path = '/api/v1/plugins/configs/notification-webhook/ops';
await must(server, '/plugins/configs?type=notification-webhook', {
  name: 'ops',
  enabled: false,
  url: receiver.url,
  signing_secret: first,
});

const put = (body: Record<string, unknown>) => server.call('PUT', path, { body });
/** Sends the test notification and answers what the receiver got. */
async function testNotification(to = receiver): Promise<Received> {
  const answer = await server.call('POST', `${path}/test`);
  if (answer.body.data?.outcome !== 'delivered') throw new Error(answer.raw);
  return to.received.at(-1)!;
}
function verifies(secret: string, r: Received): boolean {
  try {
    new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

t.test('a rotated secret: both sign during the overlap, each verified by standardwebhooks', async (t) => {
  const before = await testNotification();
  t.ok(verifies(first, before), 'the first secret signs');
  t.match(before.headers['webhook-signature'], /^v1,\S+$/, 'one signature before any rotation');

  const rotated = await put({ signing_secret: second });
  t.equal(rotated.status, 200);
  t.same(rotated.body.data.secrets_set, ['url', 'signing_secret'], 'the kept secret is not listed');
  t.equal(rotated.body.data.signing_secret_overlap_hours, 24, 'a day of overlap by default');
  const read = await server.call('GET', path);
  for (const secret of [first, second]) {
    t.notOk(read.raw.includes(secret.slice(6)), 'no secret in the answer');
    t.notOk(rotated.raw.includes(secret.slice(6)), 'nor in the update echo');
  }

  const during = await testNotification();
  t.match(during.headers['webhook-signature'], /^v1,\S+ v1,\S+$/, 'two space-separated signatures');
  t.ok(verifies(second, during), 'a receiver that switched verifies with the new secret');
  t.ok(verifies(first, during), 'a receiver not yet switched verifies with the old one');
  t.notOk(verifies(third, during), 'another secret does not verify');
});

t.test('after the overlap only the new secret signs', async (t) => {
  // Rotated 25 hours ago by the server's clock: the overlap of 24 hours is over now.
  clock.follow(-25 * 3_600_000);
  t.teardown(() => clock.follow(0));
  t.equal((await put({ signing_secret: third })).status, 200);
  clock.follow(0);
  const after = await testNotification();
  t.match(after.headers['webhook-signature'], /^v1,\S+$/, 'one signature');
  t.ok(verifies(third, after), 'the new secret verifies');
  t.notOk(verifies(second, after), 'the replaced secret no longer does');
});

t.test('an overlap of 0 switches at once', async (t) => {
  t.equal((await put({ signing_secret_overlap_hours: 0, signing_secret: fourth })).status, 200);
  const sent = await testNotification();
  t.match(sent.headers['webhook-signature'], /^v1,\S+$/);
  t.ok(verifies(fourth, sent));
  t.notOk(verifies(third, sent), 'the replaced secret does not sign');
});

t.test('a new url drops the replaced secret: it belonged to the old address', async (t) => {
  t.equal((await put({ signing_secret_overlap_hours: 24, signing_secret: first })).status, 200);
  const refused = await put({ url: other.url });
  t.equal(refused.status, 400, 'the secrets must be sent again with a new url');
  t.match(refused.body.error.details, { url: 'Changing url needs signing_secret sent again' });
  t.equal((await put({ url: other.url, signing_secret: first })).status, 200);
  const sent = await testNotification(other);
  t.match(sent.headers['webhook-signature'], /^v1,\S+$/, 'one signature');
  t.ok(verifies(first, sent));
  t.notOk(verifies(fourth, sent), 'the secret replaced before the move does not follow it');
});

t.test('the kept secret cannot be sent; bad overlaps are refused', async (t) => {
  const sneaky = await put({ signing_secret_previous: { value: second, until: '2999-01-01T00:00:00Z' } });
  t.equal(sneaky.status, 400);
  t.match(sneaky.body.error, { code: 'INVALID_INPUT', details: { signing_secret_previous: String } });
  for (const bad of [-1, 721, 1.5, '24']) {
    const r = await put({ signing_secret_overlap_hours: bad });
    t.equal(r.status, 400, `overlap ${JSON.stringify(bad)}`);
    t.ok(r.body.error.details.signing_secret_overlap_hours, 'names the setting');
  }
  const sent = await testNotification(other);
  t.ok(verifies(first, sent), 'nothing changed');
  t.notOk(verifies(second, sent));
});
