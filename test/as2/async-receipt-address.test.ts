// Covers the asynchronous receipt address pier derives when the sending organization's profile has no async_mdn_url: with PUBLIC_URL set and one AS2 receiver it is PUBLIC_URL's host with the receiver's scheme, port and path, and the receipt posted there by pier's own receiver delivers the message; with a second receiver whose public_url is set, that address is sent in Receipt-Delivery-Option.
import t from 'tap';
import { agreement, asyncSigned, freePort, pierToItself, startSender } from '../helpers/as2.js';
import { must, sendByHand, type Message } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t, { env: { PUBLIC_URL: 'http://127.0.0.1/console' } });
const { cert, url: receiver } = await pierToItself(t, server);
await startSender(server, 'out');

const send = (tag: string, done: (m: Message) => boolean): Promise<Message> =>
  sendByHand(
    server,
    { from: `s${tag}`, to: `r${tag}`, target: 'out' },
    { name: `${tag}.edi`, content: `UNB+UNOC:3+${tag}'\r\n` },
    done,
  );
const receiptOption = (m: Message): string | undefined =>
  m.protocols.as2?.headers?.['Receipt-Delivery-Option'];

t.test(
  'no async_mdn_url, PUBLIC_URL and one receiver: the receipt comes back to that receiver',
  async (t) => {
    await agreement(server, 'derived', receiver, cert, asyncSigned, {}, { receiptsTo: '' });
    const sent = await send('derived', (m) => m.status === 'Delivered' || m.status === 'Error');
    t.equal(sent.status, 'Delivered', sent.deliveries[0]?.last_error);
    t.equal(receiptOption(sent), receiver, "PUBLIC_URL's host, the receiver's port and path");
    t.ok(sent.payloads.receipt, 'the asynchronous receipt arrived');
  },
);

t.test('a second receiver with a public_url: its public_url is the address', async (t) => {
  const publicUrl = 'https://as2.pier.example/inbound';
  await must(server, '/plugins/configs?type=as2-receiver', {
    name: 'behind-proxy',
    host: '127.0.0.1',
    port: await freePort(),
    path: '/as2',
    public_url: publicUrl,
  });
  await agreement(server, 'proxied', receiver, cert, asyncSigned, {}, { receiptsTo: '' });
  const sent = await send('proxied', (m) => receiptOption(m) !== undefined || m.status === 'Error');
  t.equal(receiptOption(sent), publicUrl);
  t.match(sent.protocols.as2.headers, { 'Disposition-Notification-To': /.+/ });
});

t.test('a receiver public_url that is not a URL is refused with 400', async (t) => {
  const answer = await server.call('POST', '/api/v1/plugins/configs?type=as2-receiver', {
    body: { name: 'bad', host: '127.0.0.1', port: await freePort(), path: '/as2', public_url: 'as2.example' },
  });
  t.equal(answer.status, 400);
  t.match(answer.body.error.details, { public_url: /http/ });
});
