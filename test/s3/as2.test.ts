// Covers the AS2 sender and receiver on S3: a 300 KiB document sent pier → pier over loopback (signed, encrypted, signed synchronous receipt; and an asynchronous one) is stored by the receiver in the bucket, and every stage of both messages (unpacked, received, headers, message, receipt) downloads from it, large stages from the bucket and small ones from PostgreSQL.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { agreement, startSender, syncSigned, pierToItself } from '../helpers/as2.js';
import { sendByHand, type Message } from '../helpers/flow.js';
import { startS3 } from '../helpers/s3.js';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const s3 = await startS3(t);
const server = await startTestServer(t, { storage: s3.settings });
const { cert, url } = await pierToItself(t, server);
await startSender(server, 'out');
await agreement(server, 'sync', url, cert, syncSigned);
await agreement(server, 'async', url, cert, { ...syncSigned, mdn_mode: 'async' });

const stagesOf = async (m: Message) => {
  const out: Record<string, Buffer> = {};
  for (const stage of ['unpacked', 'received', 'headers', 'message', 'receipt']) {
    const r = await server.call('GET', `/api/v1/messages/${m.id}/payload?stage=${stage}`);
    if (r.status === 200) out[stage] = r.bytes;
  }
  return out;
};

for (const mode of ['sync', 'async'] as const) {
  t.test(`${mode} receipt: both sides keep their large stages in the bucket`, async (t) => {
    const document = randomBytes(300 * 1024);
    const sent = await sendByHand(
      server,
      { from: `s${mode}`, to: `r${mode}`, target: 'out' },
      { name: `${mode}.bin`, content: document },
      (m) => m.status === 'Error' || (m.status === 'Delivered' && m.protocols.as2?.mdn?.disposition),
      `${mode} sent with its receipt`,
    );
    t.equal(sent.status, 'Delivered', sent.deliveries[0]?.last_error);
    t.match(sent.protocols.as2.mdn.disposition, /processed$/);
    const received = await waitFor(async () => {
      const list = await server.call('GET', `/api/v1/messages?from=sp${mode}`);
      return (list.body.data.messages as Message[])[0];
    }, 'the received message');

    const inbound = await stagesOf(received);
    t.ok(inbound.unpacked?.equals(document), 'the receiver unpacked the document intact');
    t.ok(
      inbound.received && inbound.received.length > document.length,
      'received: the signed, encrypted body',
    );
    t.ok(inbound.headers && /as2-from/i.test(inbound.headers.toString()), 'headers');
    t.ok(
      inbound.message?.equals(Buffer.concat([inbound.headers!, inbound.received!])),
      'message = headers + received',
    );
    const inKeys = await s3.keys(`messages/${received.id}/`);
    t.same(
      inKeys,
      [`messages/${received.id}/received`, `messages/${received.id}/unpacked`],
      'large stages in S3',
    );

    const outbound = await stagesOf(sent);
    t.ok(outbound.unpacked?.equals(document), 'the sent document');
    t.match(outbound.receipt?.toString() ?? '', /disposition-notification/i, 'the receipt');
    t.ok((await s3.keys(`messages/${sent.id}/`)).includes(`messages/${sent.id}/unpacked`));
  });
}
