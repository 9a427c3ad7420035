// Covers how the pier as2-sender fails over real HTTP: an endpoint answering 503 twice is tried again with the same Message-ID until the real pier receiver behind it takes the message (Retrying shown, attempts counted, each retry in history); a 400 fails at once; and failures before anything is posted (no async_mdn_url for asynchronous receipts, a signing certificate that lost its key, an endpoint that is not an address) still show in protocols.as2, with the error and the Message-ID a later attempt reuses.
import t from 'tap';
import { agreement, startSender, storeCertificate, syncSigned, pierToItself } from '../helpers/as2.js';
import { sql } from '../helpers/database.js';
import { must, sendByHand, waitForMessage, waitForMessages, type Message } from '../helpers/flow.js';
import { forward, headerOf, startPeer } from '../helpers/http-peer.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);
const {
  f,
  cert,
  url: receiver,
} = await pierToItself(t, server, (f) => f.selfSigned('lost', '/O=lost/CN=lost.example'));
await startSender(server, 'out');
// Retries every second, so the test waits seconds, not minutes.
await startSender(server, 'patient', {
  max_attempts: 5,
  retry_interval: 1,
  retry_backoff: 1,
  retry_max_interval: 1,
});

const send = (tag: string, target: string, from = `s${tag}`): Promise<Message> =>
  sendByHand(
    server,
    { from, to: `r${tag}`, target },
    { name: `${tag}.edi`, content: `UNB+UNOC:3+${tag}'\r\n` },
  );

const lines = (m: Message, kind: string) => (m.history as Message[]).filter((h) => h.kind === kind);

t.test('503 twice, then the receiver behind: retried with the same Message-ID, Delivered', async (t) => {
  const proxy = await startPeer(t, (request, index) =>
    index < 2 ? { status: 503, body: 'Down for maintenance' } : forward(receiver, request),
  );
  await agreement(server, 'retry', proxy.url, cert, syncSigned);
  const m = await send('retry', 'patient');
  t.equal(m.status, 'Delivered', m.deliveries[0]?.last_error);
  t.equal(m.deliveries[0].attempts, 3, 'three attempts counted');
  t.equal(m.deliveries[0].last_error, '');
  t.equal(proxy.requests.length, 3);
  t.same(
    proxy.requests.map((r) => headerOf(r, 'message-id')),
    Array(3).fill(m.protocols.as2.message_id),
    'a retry is the same message to the partner',
  );
  const retries = lines(m, 'delivery_changed').filter((h) => h.new_state === 'retrying');
  t.equal(retries.length, 2, 'each retry in history');
  t.match(retries[0]?.text, /answered HTTP 503 Service Unavailable; attempt 2 at /);
  t.match(retries[1]?.text, /answered HTTP 503 Service Unavailable; attempt 3 at /);
  t.same(
    lines(m, 'delivery_changed')
      .filter((h) => h.new_state === 'delivering')
      .map((h) => h.text),
    ['Attempt 1', 'Attempt 2', 'Attempt 3'],
  );
  t.ok(
    lines(m, 'status_changed').some((h) => h.new_status === 'Retrying'),
    'the message showed Retrying',
  );
  t.equal(lines(m, 'mdn_received').length, 1);
  const inbound = await waitForMessages(server, 'from=spretry', (l) => l.length > 0, 'received');
  t.equal(inbound.length, 1, 'received once');
});

t.test('400: failed at once, not retried; the password never shown', async (t) => {
  const refusing = await startPeer(t, () => ({ status: 400, body: 'Unknown AS2-To' }));
  await agreement(server, 'bad', refusing.url, cert, syncSigned, {
    http_basic_user: 'pier',
    http_basic_password: 'S3cret-pass',
  });
  const m = await send('bad', 'patient');
  t.equal(m.status, 'Error');
  t.equal(m.deliveries[0].state, 'failed');
  t.equal(m.deliveries[0].attempts, 1);
  t.equal(refusing.requests.length, 1, 'posted once');
  const host = new URL(refusing.url).host;
  t.equal(m.deliveries[0].last_error, `${host} answered HTTP 400 Bad Request`);
  t.equal(lines(m, 'delivery_changed').filter((h) => h.new_state === 'retrying').length, 0);
  t.equal(
    headerOf(refusing.requests[0]!, 'authorization'),
    `Basic ${Buffer.from('pier:S3cret-pass').toString('base64')}`,
    'the partner got the credentials',
  );
  const shown = JSON.stringify(m);
  t.notMatch(shown, 'S3cret-pass');
  t.notMatch(shown, Buffer.from('pier:S3cret-pass').toString('base64'));
});

t.test('failures before posting show in protocols.as2', async (t) => {
  const nothingPosted = await startPeer(t, () => ({ status: 500 }));

  await t.test('asynchronous receipts without async_mdn_url; fixed, then redelivered', async (t) => {
    const asyncProfile = { ...syncSigned, mdn_mode: 'async' as const };
    const { organization } = await agreement(
      server,
      'nourl',
      receiver,
      cert,
      asyncProfile,
      {},
      { receiptsTo: '' },
    );
    const m = await send('nourl', 'out');
    // One receiver, but no public_url and no PUBLIC_URL: no address can be derived.
    const error =
      "asynchronous receipts need an address: the organization profile's async_mdn_url, the public_url of the one AS2 receiver, or PUBLIC_URL with one receiver";
    t.equal(m.status, 'Error');
    t.equal(m.deliveries[0].last_error, `Not sent: ${error}`);
    t.match(m.protocols.as2, {
      message_id: /^<pier-.+@Snourl>$/,
      as2_from: 'Snourl',
      as2_to: 'Rnourl',
      error,
      mdn: null,
    });

    const fixed = await server.call('PUT', `/api/v1/as2/local-profiles/${organization}`, {
      body: { async_mdn_url: receiver },
    });
    t.equal(fixed.status, 200, fixed.raw);
    // The sender keeps a pair's profiles for 5 s (kept-answers.ts): the fix counts after that.
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    const again = await server.call(
      'POST',
      `/api/v1/messages/${m.id}/deliveries/${m.deliveries[0].id}/redeliver`,
      { body: {} },
    );
    t.equal(again.status, 200, again.raw);
    const done = await waitForMessage(
      server,
      m.id,
      (x) => lines(x, 'redeliver_requested').length === 1 && ['Delivered', 'Error'].includes(x.status),
      'sent again',
    );
    t.equal(done.status, 'Delivered', done.deliveries[0].last_error);
    t.equal(done.protocols.as2.message_id, m.protocols.as2.message_id, 'the same Message-ID');
    t.equal(done.protocols.as2.error, null, 'the old error is gone');
    t.equal(done.protocols.as2.mdn.disposition, 'automatic-action/MDN-sent-automatically; processed');
  });

  await t.test('a signing certificate that lost its private key', async (t) => {
    const lost = await storeCertificate(server, f, 'lost');
    await agreement(server, 'nokey', nothingPosted.url, lost, syncSigned);
    // As after restoring a database without the keys: the API never allows this.
    await sql(server.db.url, 'update certificate set private_key = null where id = $1', [lost]);
    const m = await send('nokey', 'out');
    const error = 'the organization has no signing certificate with a private key';
    t.equal(m.deliveries[0].last_error, `Not sent: ${error}`);
    t.match(m.protocols.as2, { as2_from: 'Snokey', as2_to: 'Rnokey', error });
  });

  await t.test('an endpoint that is not an address', async (t) => {
    await agreement(server, 'badurl', nothingPosted.url, cert, syncSigned);
    // Imported before the API checked endpoints: the API never allows this either.
    await sql(
      server.db.url,
      `update as2_remote_profile set endpoint = 'as2.partner.example/as2' where as2id = 'Rbadurl'`,
    );
    const m = await send('badurl', 'out');
    const error = 'the endpoint as2.partner.example/as2 is not an address';
    t.equal(m.deliveries[0].last_error, `Not sent: ${error}`);
    t.match(m.protocols.as2, { as2_from: 'Sbadurl', as2_to: 'Rbadurl', error, message_id: /^<pier-/ });
  });

  await t.test('an organization without an AS2 profile has no AS2 record to show', async (t) => {
    await must(server, '/organizations', { name: 'plain' });
    const m = await send('retry', 'out', 'plain');
    t.equal(m.deliveries[0].last_error, 'Not sent: organization plain has no AS2 profile');
    // Its payload starts like an EDIFACT interchange, so protocols.edi shows the envelope.
    t.equal(m.protocols.as2, undefined, 'no AS2 names or Message-ID exist for it');
  });

  t.equal(nothingPosted.requests.length, 0, 'nothing was posted');
});
