// Covers the pier as2-sender's kept-alive connections: messages to an HTTPS partner share one TLS session instead of a handshake each; and a kept-alive connection that the partner's server closes just as the next message goes out on it (what a server's keep-alive timeout does under load) gets the message posted again at once on a new connection, with the same Message-ID, Delivered in its first attempt instead of failing with "socket hang up".
import t from 'tap';
import { agreement, startReceiver, startSender, storeCertificate, syncSigned } from '../helpers/as2.js';
import { makeFixtures } from '../helpers/certificates.js';
import { sendByHand, type Message } from '../helpers/flow.js';
import { forward, headerOf, startPeer } from '../helpers/http-peer.js';
import { startTestServer } from '../helpers/server.js';
import { serverCertificate } from '../helpers/tls.js';

const server = await startTestServer(t);
const f = makeFixtures(t);
f.selfSigned('pier', '/O=pier/CN=pier.example');
serverCertificate(f, 'tls');
const cert = await storeCertificate(server, f, 'pier');
const tlsCert = await storeCertificate(server, f, 'tls', false);
const receiver = await startReceiver(server);
// One attempt only: a hang-up that were not posted again at once would fail the message.
await startSender(server, 'out', { max_attempts: 1 });

const send = (name: string): Promise<Message> =>
  sendByHand(
    server,
    { from: 'skeep', to: 'rkeep', target: 'out' },
    { name, content: `UNB+UNOC:3+${name}'\r\n` },
  );

t.test('a kept-alive connection closed under the next message: posted again at once', async (t) => {
  let hungUp = false;
  // The first request on a reused connection finds it closed; every other is answered.
  const partner = await startPeer(t, (request) => {
    if (request.onConnection > 0 && !hungUp) {
      hungUp = true;
      return { status: 0, hangUp: true };
    }
    return forward(receiver, request);
  });
  await agreement(server, 'keep', partner.url, cert, syncSigned);

  const first = await send('first.edi');
  t.equal(first.status, 'Delivered', first.deliveries[0]?.last_error);
  const second = await send('second.edi');
  t.ok(hungUp, 'the second message went out on the kept connection, which was closed');
  t.equal(second.status, 'Delivered', second.deliveries[0]?.last_error);
  t.equal(second.deliveries[0].attempts, 1, 'within its first attempt');
  t.equal(second.deliveries[0].last_error, '');

  t.equal(partner.requests.length, 3, 'the first message once, the second twice');
  const [, closed, again] = partner.requests;
  t.equal(again!.onConnection, 0, 'posted again on a new connection');
  t.equal(headerOf(again!, 'message-id'), headerOf(closed!, 'message-id'), 'with the same Message-ID');
  t.equal(headerOf(again!, 'message-id'), second.protocols.as2.message_id);
});

t.test('messages to an HTTPS partner share one TLS session', async (t) => {
  const partner = await startPeer(t, (request) => forward(receiver, request), {
    tls: { key: f.read('tls.key'), cert: f.read('tls.crt') },
  });
  await agreement(server, 'tls', partner.url, cert, syncSigned, { tls_trusted_certificate_ids: [tlsCert] });
  for (const name of ['one.edi', 'two.edi', 'three.edi']) {
    const m = await sendByHand(
      server,
      { from: 'stls', to: 'rtls', target: 'out' },
      { name, content: `UNB+UNOC:3+${name}'\r\n` },
    );
    t.equal(m.status, 'Delivered', `${name}: ${m.deliveries[0]?.last_error}`);
  }
  t.equal(partner.requests.length, 3);
  t.equal(partner.connections, 1, 'one TLS handshake for the three');
});
