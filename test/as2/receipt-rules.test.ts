// Covers how the pier as2-sender judges synchronous receipts written by another implementation (an HTTP peer answering with MDNs built by hand and signed by `openssl cms -sign`, as pyas2lib writes them): an unsigned receipt without Received-Content-MIC delivers; a signed receipt without a MIC delivers for a message pier did not sign and is reported as missing for one it signed; a processed/Warning receipt delivers with its warning in the history; an unsigned error receipt where a signed one was requested fails with the partner's disposition and explanation kept.
import t from 'tap';
import { bobAndAlicePeer, partner, startSender } from '../helpers/as2.js';
import { sendByHand, type Message } from '../helpers/flow.js';
import { headerOf, type PeerRequest } from '../helpers/http-peer.js';
import { startTestServer } from '../helpers/server.js';
import { asHttp, receiptReport, writeFixture } from '../helpers/smime.js';
import { makeParties } from './parties.js';

const server = await startTestServer(t);
const parties = makeParties();
t.teardown(() => parties.remove());
const { fixtures } = parties;

/** The receipt the peer answers the next message with. */
let receipt: { disposition: string; signed: boolean; text: string; extra?: string[] } = {
  disposition: 'processed',
  signed: false,
  text: 'ok',
};

function answer(request: PeerRequest, index: number) {
  const messageId = headerOf(request, 'message-id')!;
  const report = receiptReport({
    text: receipt.text,
    ua: 'pyas2lib-like test peer',
    messageId,
    disposition: `automatic-action/MDN-sent-automatically; ${receipt.disposition}`,
    fields: receipt.extra,
  });
  let mdn = asHttp(Buffer.from(report));
  if (receipt.signed) {
    writeFixture(fixtures, 'report.mime', report);
    fixtures.openssl(
      'cms -sign -binary -in report.mime -signer alice.crt -inkey alice.key -md sha256 -out mdn.eml',
    );
    mdn = asHttp(fixtures.read('mdn.eml'));
  }
  return {
    status: 200,
    headers: {
      'AS2-Version': '1.2',
      'AS2-From': 'ALICE',
      'Message-ID': `<r${index}@alice.example>`,
      ...mdn.headers,
    },
    body: mdn.body,
  };
}

const { peer, aliceCert } = await bobAndAlicePeer(t, server, fixtures, answer);
const common = { encryption_algorithm: 'none', compression: false, mdn_mode: 'sync' as const };
// Three profiles of the same peer: pier signs or not, and asks a signed receipt or not.
await partner(server, 'plain', 'ALICE', peer.url, aliceCert, {
  ...common,
  signing_algorithm: 'none',
  mdn_signed: false,
});
await partner(server, 'unsigned-out', 'ALICE2', peer.url, aliceCert, {
  ...common,
  signing_algorithm: 'none',
  mdn_signed: true,
});
await partner(server, 'signed-out', 'ALICE3', peer.url, aliceCert, {
  ...common,
  signing_algorithm: 'sha256',
  mdn_signed: true,
});
await startSender(server, 'out', { max_attempts: 3, retry_interval: 1 });

const send = (to: string, name: string): Promise<Message> =>
  sendByHand(server, { from: 'bob', to, target: 'out' }, { name, content: "UNB+UNOC:3+BOB+ALICE'\r\n" });
const historyOf = (m: Message, kind: string) => (m.history as Message[]).filter((h) => h.kind === kind);

t.test('an unsigned processed receipt without a MIC: Delivered, noting the missing MIC', async (t) => {
  receipt = { disposition: 'processed', signed: false, text: 'The message was received.' };
  const sent = await send('plain', 'plain.edi');
  t.equal(sent.status, 'Delivered', sent.deliveries[0]?.last_error);
  const [line] = historyOf(sent, 'mdn_received');
  t.match(line?.text, 'The receipt carried no MIC (optional in an unsigned receipt).');
  t.match(sent.protocols.as2.mdn, { signed: false, mic: null });
});

t.test('a signed processed receipt without a MIC, for a message pier did not sign: Delivered', async (t) => {
  receipt = { disposition: 'processed', signed: true, text: 'The message was received.' };
  const sent = await send('unsigned-out', 'unsigned.edi');
  t.equal(sent.status, 'Delivered', sent.deliveries[0]?.last_error);
  const [line] = historyOf(sent, 'mdn_received');
  t.match(line?.text, 'The receipt carried no MIC (the message was not signed, so there was none to prove).');
  t.match(sent.protocols.as2.mdn, { signed: true, verified: true, mic: null });
});

t.test(
  'a signed processed receipt without a MIC, for a message pier signed: Failed as missing',
  async (t) => {
    receipt = { disposition: 'processed', signed: true, text: 'The message was received.' };
    const sent = await send('signed-out', 'signed.edi');
    t.equal(sent.status, 'Error');
    t.equal(sent.deliveries[0].attempts, 1);
    const [line] = historyOf(sent, 'mdn_refused');
    t.equal(
      line?.text,
      `The signed receipt carries no MIC (Received-Content-MIC missing); ours is ${sent.protocols.as2.mic}`,
    );
    t.equal(sent.deliveries[0].last_error, line?.text);
    t.notMatch(line?.text, 'differs');
  },
);

t.test(
  'a signed processed/Warning: duplicate-document receipt without a MIC: Delivered with the warning',
  async (t) => {
    receipt = {
      disposition: 'processed/Warning: duplicate-document',
      signed: true,
      text: 'This message has already been received.',
    };
    const sent = await send('signed-out', 'again.edi');
    t.equal(sent.status, 'Delivered', sent.deliveries[0]?.last_error);
    const [line] = historyOf(sent, 'mdn_received');
    t.match(line?.text, 'processed/Warning: duplicate-document');
    t.match(line?.text, 'The partner processed it with a warning: duplicate-document.');
    t.match(line?.text, 'This message has already been received.');
  },
);

t.test('an unsigned error receipt where a signed one was requested: the partner’s words kept', async (t) => {
  receipt = {
    disposition: 'processed/Error: unknown-trading-partner',
    signed: false,
    text: 'Partner BOB is not known here.',
    extra: ['Error: unknown-trading-partner'],
  };
  const sent = await send('signed-out', 'unknown.edi');
  t.equal(sent.status, 'Error');
  t.equal(sent.deliveries[0].attempts, 1);
  const [line] = historyOf(sent, 'mdn_refused');
  t.match(line?.text, /^The receipt was refused \(unsigned\): a signed receipt was requested/);
  t.match(line?.text, 'automatic-action/MDN-sent-automatically; processed/Error: unknown-trading-partner');
  t.match(line?.text, 'Partner BOB is not known here.');
  t.equal(sent.deliveries[0].last_error, line?.text);
  t.match(sent.protocols.as2.mdn, {
    disposition: 'automatic-action/MDN-sent-automatically; processed/Error: unknown-trading-partner',
    signed: false,
    verified: false,
  });
});
