// Covers the pier as2-sender judging a synchronous receipt made by an implementation it did not write: a peer on 127.0.0.1 decrypts and verifies pier's message with `openssl cms`, computes the MIC with `openssl dgst` and answers with a multipart/report signed by `openssl cms -sign`. A good receipt delivers the message (mdn_received, signed and verified); a receipt with another MIC, or signed by a certificate the partner's profile does not list, fails it without retry (mdn_refused), and so does a receipt whose disposition is failed/Failure; each such failure raises the delivery_failed alert.
import t from 'tap';
import { bobAndAlicePeer, partner, startSender, syncSigned } from '../helpers/as2.js';
import { sendByHand, type Message } from '../helpers/flow.js';
import { sql } from '../helpers/database.js';
import { headerOf, type PeerRequest } from '../helpers/http-peer.js';
import { startTestServer } from '../helpers/server.js';
import { asHttp, opensslDigest, opensslVerifies, receiptReport, writeFixture } from '../helpers/smime.js';
import { makeParties } from './parties.js';

const server = await startTestServer(t);
const parties = makeParties();
t.teardown(() => parties.remove());
const { fixtures } = parties;
const openssl = fixtures.openssl;

/** How the peer answers the next message. */
let mode: 'good' | 'mic-of-the-document-only' | 'signed-by-mallory' | 'failed' = 'good';
const failedDisposition = 'automatic-action/MDN-sent-automatically; failed/Failure: unsupported format';
/** What the peer found in each message, by Message-ID. */
const received = new Map<string, { document: Buffer; mic: string; receiptId: string }>();

/** The peer: alice's AS2 endpoint, made of openssl commands. */
function answer(request: PeerRequest, index: number) {
  const messageId = headerOf(request, 'message-id')!;
  writeFixture(fixtures, 'in.der', request.body);
  openssl('cms -decrypt -binary -inform DER -in in.der -inkey alice.key -recip alice.crt -out decrypted.eml');
  const decrypted = fixtures.read('decrypted.eml');
  const contentType = asHttp(decrypted).headers['Content-Type']!;
  const signedEntity = opensslVerifies(fixtures, decrypted, contentType, 'bob.crt');
  const document = asHttp(signedEntity).body;
  // RFC 4130 §7.3.1: signed, so the MIC is over the signed entity, headers included.
  let mic = opensslDigest(fixtures, 'sha256', 'signed-part.bin');
  if (mode === 'mic-of-the-document-only') {
    writeFixture(fixtures, 'document.bin', document);
    mic = opensslDigest(fixtures, 'sha256', 'document.bin');
  }
  const receiptId = `<receipt-${index}@alice.example>`;
  received.set(messageId, { document, mic: `${mic}, sha-256`, receiptId });
  const report = receiptReport({
    text: 'The message was received and verified.',
    ua: 'openssl test peer',
    messageId,
    disposition: mode === 'failed' ? failedDisposition : 'automatic-action/MDN-sent-automatically; processed',
    fields: [`Received-Content-MIC: ${mic}, sha-256`],
  });
  writeFixture(fixtures, 'report.mime', report);
  const signer = mode === 'signed-by-mallory' ? 'mallory' : 'alice';
  openssl(
    `cms -sign -binary -in report.mime -signer ${signer}.crt -inkey ${signer}.key -md sha256 -out mdn.eml`,
  );
  const mdn = asHttp(fixtures.read('mdn.eml'));
  return {
    status: 200,
    headers: {
      'AS2-Version': '1.2',
      'AS2-From': 'ALICE',
      'AS2-To': 'BOB',
      'Message-ID': receiptId,
      ...mdn.headers,
    },
    body: mdn.body,
  };
}

const { peer, aliceCert } = await bobAndAlicePeer(t, server, fixtures, answer);
await partner(server, 'alice', 'ALICE', peer.url, aliceCert, syncSigned);
await startSender(server, 'out', { max_attempts: 3, retry_interval: 1 });

const send = (name: string, content: string): Promise<Message> =>
  sendByHand(server, { from: 'bob', to: 'alice', target: 'out' }, { name, content });

const historyOf = (m: Message, kind: string) => (m.history as Message[]).filter((h) => h.kind === kind);
const deliveryFailedAlerts = (m: Message) =>
  sql(server.db.url, "select * from alert where code = 'delivery_failed' and details->>'message_id' = $1", [
    m.id,
  ]);

t.test('a receipt signed by openssl with the MIC openssl computed: Delivered', async (t) => {
  mode = 'good';
  const content = "UNA:+.? '\r\nUNB+UNOC:3+BOB+ALICE'\r\nUNZ+1'\r\n";
  const sent = await send('order.edi', content);
  t.equal(sent.status, 'Delivered', sent.deliveries[0]?.last_error);
  const as2 = sent.protocols.as2;
  const seen = received.get(as2.message_id)!;
  t.ok(seen, 'the peer got the message pier recorded');
  t.equal(seen.document.toString(), content, 'openssl decrypted and verified the document');
  t.equal(as2.mic, seen.mic, 'pier computed the MIC openssl computed');
  t.match(as2.mdn, {
    disposition: 'automatic-action/MDN-sent-automatically; processed',
    signed: true,
    verified: true,
    mic: seen.mic,
  });
  t.equal(as2.receipt_message_id, seen.receiptId);
  const lines = historyOf(sent, 'mdn_received');
  t.equal(lines.length, 1);
  t.match(lines[0].text, /processed/);
  t.equal(historyOf(sent, 'mdn_refused').length, 0);
  t.equal(sent.deliveries[0].attempts, 1);
});

t.test('a receipt whose MIC covers the document without its headers: Failed, not retried', async (t) => {
  mode = 'mic-of-the-document-only';
  const before = peer.requests.length;
  const sent = await send('wrong-mic.edi', "UNB+UNOC:3+BOB+ALICE'\r\n");
  t.equal(sent.status, 'Error');
  t.equal(sent.deliveries[0].state, 'failed');
  t.equal(sent.deliveries[0].attempts, 1, 'not retried: the partner would answer the same');
  t.equal(peer.requests.length, before + 1);
  const seen = received.get(sent.protocols.as2.message_id)!;
  const [line] = historyOf(sent, 'mdn_refused');
  t.match(line?.text, `The receipt's MIC ${seen.mic} differs from ours ${sent.protocols.as2.mic}`);
  t.equal(sent.deliveries[0].last_error, line?.text);
  t.match(sent.protocols.as2.mdn, { signed: true, verified: true, mic: seen.mic });
  t.equal(historyOf(sent, 'mdn_received').length, 0);
  t.match(
    await deliveryFailedAlerts(sent),
    [{ severity: 'warning', subject_id: String(sent.deliveries[0].id), instance: 'out' }],
    'delivery_failed raised',
  );
});

t.test('a receipt with the disposition failed/Failure: Failed, delivery_failed raised', async (t) => {
  mode = 'failed';
  const sent = await send('failed.edi', "UNB+UNOC:3+BOB+ALICE'\r\n");
  t.equal(sent.status, 'Error');
  t.equal(sent.deliveries[0].attempts, 1, 'not retried');
  const [line] = historyOf(sent, 'mdn_refused');
  t.match(line?.text, `The partner refused the message: ${failedDisposition}`);
  t.match(sent.protocols.as2.mdn, { disposition: failedDisposition, signed: true, verified: true });
  t.match(
    await deliveryFailedAlerts(sent),
    [
      {
        code: 'delivery_failed',
        severity: 'warning',
        subject_kind: 'delivery',
        subject_id: String(sent.deliveries[0].id),
        instance: 'out',
        summary: `Delivery of message ${sent.id} to out failed: The partner refused the message: ${failedDisposition}`,
        link: `/ui/messages/${sent.id}`,
      },
    ],
    'one delivery_failed alert, naming the partner refusal',
  );
});

t.test('a receipt signed by a certificate not in the partner profile: Failed', async (t) => {
  mode = 'signed-by-mallory';
  const sent = await send('mallory.edi', "UNB+UNOC:3+BOB+ALICE'\r\n");
  t.equal(sent.status, 'Error');
  t.equal(sent.deliveries[0].attempts, 1);
  const [line] = historyOf(sent, 'mdn_refused');
  t.match(line?.text, /^The receipt was refused \(signature\): .*not among the partner/);
  t.equal(sent.deliveries[0].last_error, line?.text);
  t.match(sent.protocols.as2.mdn, { signed: true, verified: false }, 'signed, but not by alice');
});
