// Covers redeliver of a delivered AS2 message (docs/api/lifecycles.md#delivery-state, last row) through real actors and real HTTP: the request goes out again with the same Message-ID (seen by a recording proxy in front of the pier receiver and in the receiver's stored headers), the receiver takes it as a duplicate (duplicate_received, answered with the stored receipt, not stored or routed again), and the sender's delivery ends Delivered again; with a synchronous and with an asynchronous receipt.
import t from 'tap';
import { agreement, startSender, pierToItself } from '../helpers/as2.js';
import { upload, waitForMessage, type Message } from '../helpers/flow.js';
import { forward, headerOf, startPeer } from '../helpers/http-peer.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);
const { cert, url: receiver } = await pierToItself(t, server);
// Everything between the two sides passes this proxy, which keeps what it saw.
const proxy = await startPeer(t, (request) => forward(receiver, request));
await startSender(server, 'out');
const protection = { signing_algorithm: 'sha256', encryption_algorithm: 'aes256-cbc', compression: true };
await agreement(server, 'sync', proxy.url, cert, { ...protection, mdn_mode: 'sync', mdn_signed: true });
await agreement(server, 'async', proxy.url, cert, { ...protection, mdn_mode: 'async', mdn_signed: true });

const historyOf = (m: Message, kind: string) => (m.history as Message[]).filter((h) => h.kind === kind);

for (const mode of ['sync', 'async'] as const) {
  t.test(`redeliver with a ${mode} receipt resends the same Message-ID`, async (t) => {
    const made = await upload(
      server,
      { from: `s${mode}`, to: `r${mode}`, target: 'out' },
      { name: `order-${mode}.edi`, content: `UNB+UNOC:3+${mode}'\r\n` },
    );
    t.equal(made.status, 201, 'uploaded');
    const id = made.body.data.id as string;
    const first = await waitForMessage(
      server,
      id,
      (m) => m.status === 'Delivered' || m.status === 'Error',
      'first delivery',
    );
    t.equal(first.status, 'Delivered', first.deliveries[0]?.last_error);
    const messageId = first.protocols.as2.message_id as string;
    const delivery = first.deliveries[0];

    const again = await server.call('POST', `/api/v1/messages/${id}/deliveries/${delivery.id}/redeliver`, {
      body: {},
    });
    t.equal(again.status, 200, again.raw);
    const second = await waitForMessage(
      server,
      id,
      // A synchronous receipt's line is written just before the delivery's result: wait for both.
      (m) =>
        historyOf(m, 'redeliver_requested').length === 1 &&
        (m.status === 'Delivered' || m.status === 'Error') &&
        (historyOf(m, 'mdn_received').length === 2 || m.status === 'Error'),
      'redelivered and receipted',
    );
    t.equal(second.status, 'Delivered', second.deliveries[0]?.last_error);
    t.equal(second.deliveries[0].state, 'delivered');
    t.equal(second.deliveries[0].attempts, 1, 'attempts counted from zero again');
    t.match(historyOf(second, 'redeliver_requested')[0]?.text, /tester/, 'names the user');
    t.equal(second.protocols.as2.message_id, messageId, 'the sender records the same Message-ID');
    t.equal(
      second.protocols.as2.receipt_message_id,
      first.protocols.as2.receipt_message_id,
      'answered with the receipt stored the first time',
    );
    const receipt = await server.call('GET', `/api/v1/messages/${id}/payload?stage=receipt`);
    t.equal(
      second.payloads.receipt?.size_bytes,
      receipt.bytes.length,
      `the stored receipt and its size agree ${receipt.status} ${receipt.raw.slice(0, 200)}`,
    );

    // What travelled: two messages from the sender, both with the Message-ID of the first.
    const sent = proxy.requests
      .map((request, index) => ({ request, answer: proxy.answers[index]! }))
      .filter(({ request }) => headerOf(request, 'as2-from') === `S${mode}`);
    t.equal(sent.length, 2, 'the message was posted twice');
    t.same(
      sent.map(({ request }) => headerOf(request, 'message-id')),
      [messageId, messageId],
    );
    if (mode === 'sync')
      t.same(sent[1]!.answer.body, sent[0]!.answer.body, 'the second answer is the stored receipt');
    const receipts = proxy.requests.filter((r) => headerOf(r, 'as2-from') === `R${mode}`);
    t.equal(receipts.length, mode === 'async' ? 2 : 0, 'asynchronous receipts: one per post');

    // The receiving side: one message, the repeat noted on it.
    const inbound = (await server.call('GET', `/api/v1/messages?from=sp${mode}`)).body.data
      .messages as Message[];
    t.equal(inbound.length, 1, 'the repeat was not stored as a second message');
    const earlier = inbound[0];
    t.equal(earlier.protocols.as2.message_id, messageId);
    const headers = await server.call('GET', `/api/v1/messages/${earlier.id}/payload?stage=headers`);
    const stored = headers.raw.split('\r\n').filter((line) => /^message-id:/i.test(line));
    t.same(stored, [`message-id: ${messageId}`], 'the stored headers carry the Message-ID');
    const [duplicate] = historyOf(earlier, 'duplicate_received');
    t.ok(duplicate, 'duplicate_received');
    t.match(duplicate?.text, messageId);
    t.equal(earlier.status, 'NotRouted', 'not routed again');
  });
}

t.test('a redelivery refused by the partner clears the earlier receipt from protocols.as2', async (t) => {
  let refuse = false;
  const gate = await startPeer(t, (request) =>
    refuse ? { status: 400, body: 'not now' } : forward(receiver, request),
  );
  await agreement(server, 'gate', gate.url, cert, { ...protection, mdn_mode: 'sync', mdn_signed: true });
  const made = await upload(
    server,
    { from: 'sgate', to: 'rgate', target: 'out' },
    { name: 'order-gate.edi', content: "UNB+UNOC:3+gate'\r\n" },
  );
  const id = made.body.data.id as string;
  const first = await waitForMessage(
    server,
    id,
    (m) => m.status === 'Delivered' || m.status === 'Error',
    'first',
  );
  t.equal(first.status, 'Delivered', first.deliveries[0]?.last_error);
  t.match(first.protocols.as2.mdn, { disposition: /processed$/ }, 'the first receipt is shown');
  refuse = true;
  const again = await server.call(
    'POST',
    `/api/v1/messages/${id}/deliveries/${first.deliveries[0].id}/redeliver`,
    {
      body: {},
    },
  );
  t.equal(again.status, 200, again.raw);
  const second = await waitForMessage(
    server,
    id,
    (m) => historyOf(m, 'redeliver_requested').length === 1 && m.deliveries[0]?.state === 'failed',
    'redelivery refused',
  );
  t.match(second.deliveries[0].last_error, /answered HTTP 400/);
  t.equal(second.protocols.as2.mdn, null, 'no receipt shown for the attempt that got none');
  t.equal(second.protocols.as2.message_id, first.protocols.as2.message_id, 'the same Message-ID');
});
