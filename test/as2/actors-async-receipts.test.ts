// Covers asynchronous receipts between real actors over real HTTP, with an injected clock: the pier receiver refusing a message (unsigned where the agreement signs, encrypted for a certificate it has no key for) sends an error MDN to the sender's async_mdn_url, and the sender's delivery fails with mdn_refused and the disposition, raising delivery_failed; a receipt that never comes fails the delivery when the sweep runs past receipt_timeout_hours (mdn_overdue, not delivery_failed as well); a receipt late by the sender's receipt_alert_minutes raises receipts_missing for the partner hours before that, once, and ends it when it comes; and arriving later it changes nothing and is noted without inventing a delivery (receipts_missing stands for the partner until then, and the late receipt ends it); a message that was never sent is not failed a second time by the sweep.
import t from 'tap';
import { agreement, asyncSigned, startReceiver, startSender, storeCertificate } from '../helpers/as2.js';
import { makeFixtures } from '../helpers/certificates.js';
import { finished, sendByHand, waitForMessages, type Message } from '../helpers/flow.js';
import { forward, headerOf, startPeer } from '../helpers/http-peer.js';
import { sql } from '../helpers/database.js';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { SharedClock } from '../../protocol/clock.js';

const hour = 3_600_000;
/** How far the injected clock is ahead of the real one. */
const clock = SharedClock.ahead(0);
// The receipt sweep is run by hand; the dispatcher's timed work is not needed (one attempt).
const server = await startTestServer(t, {
  clock,
  runtime: { timers: false },
});
const f = makeFixtures(t);
f.selfSigned('pier', '/O=pier/CN=pier.example');
f.selfSigned('other', '/O=other/CN=other.example');
const cert = await storeCertificate(server, f, 'pier');
const otherCert = await storeCertificate(server, f, 'other', false);
const receiver = await startReceiver(server);
await startSender(server, 'out');
const sweep = () => server.ctx.runtime!.as2.sweep();

const send = (tag: string, done: (m: Message) => boolean, what: string): Promise<Message> =>
  sendByHand(
    server,
    { from: `s${tag}`, to: `r${tag}`, target: 'out' },
    { name: `${tag}.edi`, content: `UNB+UNOC:3+${tag}'\r\n` },
    done,
    what,
  );
const historyOf = (m: Message, kind: string) => (m.history as Message[]).filter((h) => h.kind === kind);

async function inboundOf(tag: string): Promise<Message> {
  const [m] = await waitForMessages(server, `from=sp${tag}`, (l) => l.length > 0, `${tag} received`);
  return m;
}

t.test('the receiver refuses and says so in an asynchronous error MDN', async (t) => {
  const cases = [
    {
      tag: 'unsigned',
      modifier: 'insufficient-message-security',
      // We send unsigned; the receiving side's agreement says we sign.
      ours: { ...asyncSigned, signing_algorithm: 'none' },
      extra: {},
    },
    {
      tag: 'wrongkey',
      modifier: 'decryption-failed',
      ours: asyncSigned,
      // Encrypted for a certificate the receiving organization has no key for.
      extra: { partner_certificate_id: otherCert, signature_certificate_ids: [cert] },
    },
  ];
  for (const c of cases) {
    await agreement(server, c.tag, receiver, cert, c.ours, c.extra, { theirs: asyncSigned });
    const sent = await send(c.tag, finished, `${c.tag}: refused by receipt`);
    const disposition = `automatic-action/MDN-sent-automatically; processed/Error: ${c.modifier}`;
    t.equal(sent.status, 'Error', c.tag);
    t.equal(sent.deliveries[0].state, 'failed');
    t.equal(sent.deliveries[0].attempts, 1, `${c.tag}: not sent again`);
    const [refused] = historyOf(sent, 'mdn_refused');
    // The partner's explanation (pier's own receipt text here) follows the disposition.
    t.match(refused?.text, `The partner refused the message: ${disposition} (`, `${c.tag}: mdn_refused`);
    t.equal(refused?.delivery_id, sent.deliveries[0].id);
    t.equal(sent.deliveries[0].last_error, refused?.text);
    t.match(sent.protocols.as2.mdn, { disposition, signed: true, verified: true });
    t.ok(sent.payloads.receipt, `${c.tag}: the receipt is kept`);
    t.match(
      await sql(
        server.db.url,
        "select * from alert where code = 'delivery_failed' and details->>'message_id' = $1",
        [sent.id],
      ),
      [
        {
          severity: 'warning',
          subject_kind: 'delivery',
          subject_id: String(sent.deliveries[0].id),
          instance: 'out',
          summary: `Delivery of message ${sent.id} to out failed: ${refused?.text}`,
          link: `/ui/messages/${sent.id}`,
        },
      ],
      `${c.tag}: the negative receipt raised delivery_failed`,
    );

    const inbound = await inboundOf(c.tag);
    t.equal(inbound.status, 'Refused', `${c.tag}: Refused on the receiving side`);
    t.match(inbound.refusal, `processed/Error: ${c.modifier}`);
    t.match(inbound.protocols.as2.mdn, { mode: 'async', disposition, signed: true });
  }
});

t.test('no receipt within receipt_timeout_hours: the sweep fails the delivery', async (t) => {
  // The receiver's receipts go to a peer that keeps them: for the sender, they never come.
  const held = await startPeer(t, () => ({ status: 200, body: 'Thanks' }));
  await agreement(
    server,
    'late',
    receiver,
    cert,
    asyncSigned,
    { receipt_timeout_hours: 2 },
    { receiptsTo: held.url },
  );
  const waiting = await send('late', (m) => m.status === 'AwaitingReceipt', 'awaiting the receipt');
  t.equal(waiting.deliveries[0].state, 'awaiting_ack');
  // The receiver sends the receipt after its HTTP answer.
  await waitFor(() => held.requests.length === 1, 'the receipt sent, to the wrong place');

  clock.follow(2 * hour - 60_000);
  await sweep();
  let m = (await server.call('GET', `/api/v1/messages/${waiting.id}`)).body.data;
  t.equal(m.status, 'AwaitingReceipt', 'a minute before the deadline nothing happens');

  clock.follow(2 * hour + 60_000);
  await sweep();
  m = (await server.call('GET', `/api/v1/messages/${waiting.id}`)).body.data;
  const text = 'No receipt (MDN) arrived within the receipt timeout';
  t.equal(m.status, 'Error');
  t.equal(m.deliveries[0].state, 'failed');
  t.equal(m.deliveries[0].last_error, text);
  t.ok(Date.parse(m.deliveries[0].finished_at) >= Date.now() + 2 * hour, 'finished at the injected time');
  const [refused] = historyOf(m, 'mdn_refused');
  t.equal(refused?.text, text);
  t.equal(refused?.delivery_id, m.deliveries[0].id);
  t.match(historyOf(m, 'delivery_changed').at(-1), {
    old_state: 'awaiting_ack',
    new_state: 'failed',
    text,
  });
  t.equal(historyOf(m, 'status_changed').at(-1)?.new_status, 'Error');
  t.match(
    await sql(server.db.url, "select * from alert where code = 'mdn_overdue'"),
    [{ severity: 'warning', subject_id: waiting.id, link: `/ui/messages/${waiting.id}` }],
    'mdn_overdue raised',
  );
  t.same(
    await sql(
      server.db.url,
      "select id from alert where code = 'delivery_failed' and details->>'message_id' = $1",
      [waiting.id],
    ),
    [],
    'an overdue receipt is mdn_overdue alone, not delivery_failed as well',
  );
  const [missing] = await sql(server.db.url, "select * from alert where code = 'receipts_missing'");
  t.match(
    missing,
    { subject_kind: 'partner', subject_id: waiting.to, link: /^\/ui\/partners\/\d+\/profile$/ },
    'receipts_missing stands for the partner',
  );
  t.equal(await sweep(), 0, 'a second sweep finds nothing');
  t.notOk(m.payloads.receipt, 'no receipt stored while none came');

  t.test('the receipt arriving after the deadline changes nothing and is noted', async (t) => {
    const late = await forward(receiver, held.requests[0]!);
    t.equal(late.status, 200, 'the partner is told it arrived');
    t.match(String(late.body), /no delivery was waiting/i);
    const after = (await server.call('GET', `/api/v1/messages/${waiting.id}`)).body.data;
    t.equal(after.status, 'Error', 'still failed');
    t.equal(after.deliveries[0].state, 'failed');
    t.same(after.protocols.as2.mdn, m.protocols.as2.mdn, 'protocols.as2 keeps what it showed');
    const lines = (after.history as Message[]).slice(m.history.length);
    t.equal(lines.length, 1, 'one line, no status change');
    t.match(lines[0], { kind: 'mdn_received', text: /no delivery was waiting/i });
    t.match(
      await sql(server.db.url, "select * from alert where code = 'receipts_resumed'"),
      [{ subject_kind: 'partner', subject_id: waiting.to }],
      'a receipt from the partner ends receipts_missing',
    );
    t.notOk('delivery_id' in lines[0], 'no made-up delivery');
    t.match(lines[0].text, /processed/, 'says what the receipt said');

    // Evidence the partner had the message after all: the receipt is kept as the message's.
    const kept = await server.call('GET', `/api/v1/messages/${waiting.id}/payload?stage=receipt`);
    t.equal(kept.status, 200, 'the late receipt is stored');
    t.match(kept.raw, /multipart\/(signed|report)/i, 'as it arrived, Content-Type first');
    t.match(kept.raw, /Original-Message-ID/i);
    t.equal(after.payloads.receipt?.size_bytes, kept.bytes.length, 'its size recorded');

    const again = await forward(receiver, held.requests[0]!);
    t.equal(again.status, 200, 'a second copy is answered too');
    const last = (await server.call('GET', `/api/v1/messages/${waiting.id}`)).body.data;
    t.same(last.payloads.receipt, after.payloads.receipt, 'and does not replace the stored one');
  });
});

t.test(
  'a receipt late by receipt_alert_minutes raises receipts_missing hours before the timeout',
  async (t) => {
    const held = await startPeer(t, () => ({ status: 200, body: 'Thanks' }));
    await agreement(
      server,
      'slow',
      receiver,
      cert,
      asyncSigned,
      { receipt_timeout_hours: 24 },
      { receiptsTo: held.url },
    );
    const waiting = await send('slow', (m) => m.status === 'AwaitingReceipt', 'awaiting the receipt');
    await waitFor(() => held.requests.length === 1, 'the receipt sent, to the wrong place');
    const missing = () =>
      sql(server.db.url, "select * from alert where code = 'receipts_missing' and subject_id = $1", [
        waiting.to,
      ]);

    // The sender's default: 15 minutes.
    clock.advance(14 * 60_000);
    await sweep();
    t.same(await missing(), [], 'fourteen minutes late: nothing yet');

    clock.advance(2 * 60_000);
    await sweep();
    t.match(
      await missing(),
      [
        {
          severity: 'warning',
          subject_kind: 'partner',
          instance: 'as2-sender:out',
          summary: `Partner ${waiting.to} sends no receipts (MDN): the one for message ${waiting.id} is late`,
          link: /^\/ui\/partners\/\d+\/profile$/,
        },
      ],
      'sixteen minutes late: receipts_missing for the partner',
    );
    const m = (await server.call('GET', `/api/v1/messages/${waiting.id}`)).body.data;
    t.equal(m.status, 'AwaitingReceipt', 'the message still waits: its timeout is hours away');
    t.equal(m.deliveries[0].state, 'awaiting_ack');
    t.same(
      await sql(server.db.url, "select id from alert where code = 'mdn_overdue' and subject_id = $1", [
        waiting.id,
      ]),
      [],
      'no mdn_overdue before the timeout',
    );
    clock.advance(60_000);
    await sweep();
    t.equal((await missing()).length, 1, 'raised once for the message');

    const came = await forward(receiver, held.requests[0]!);
    t.equal(came.status, 200);
    const done = (await server.call('GET', `/api/v1/messages/${waiting.id}`)).body.data;
    t.equal(done.status, 'Delivered', 'the receipt, late, settles the delivery');
    t.match(
      await sql(server.db.url, "select * from alert where code = 'receipts_resumed' and subject_id = $1", [
        waiting.to,
      ]),
      [
        {
          subject_kind: 'partner',
          summary: `Partner ${waiting.to} sends receipts (MDN) again: one arrived for message ${waiting.id}`,
        },
      ],
      'the receipt ends receipts_missing',
    );
  },
);

t.test('a message whose post failed is not failed again by the sweep', async (t) => {
  const down = await startPeer(t, () => ({ status: 503, body: 'Down for maintenance' }));
  await agreement(
    server,
    'down',
    down.url,
    cert,
    asyncSigned,
    { receipt_timeout_hours: 1 },
    { receiptsTo: receiver },
  );
  const failed = await send('down', finished, 'the post failed');
  t.equal(failed.status, 'Error');
  t.match(failed.deliveries[0].last_error, /answered HTTP 503/);
  t.equal(
    headerOf(down.requests[0]!, 'receipt-delivery-option'),
    receiver,
    'an asynchronous receipt was asked',
  );

  clock.advance(2 * hour);
  await sweep();
  const after = (await server.call('GET', `/api/v1/messages/${failed.id}`)).body.data;
  t.same(after.history, failed.history, 'no receipt was due: no line about one');
  t.equal(after.deliveries[0].last_error, failed.deliveries[0].last_error, 'the real error stays');
});
