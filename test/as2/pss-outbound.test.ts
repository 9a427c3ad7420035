// Covers the pier as2-sender signing with RSASSA-PSS (profile signing_algorithm rsa-pss-sha256/384/512) and with RSA PKCS#1 v1.5 over SHA3-256/384/512 (sha3-256/384/512): a peer on 127.0.0.1 made of openssl commands verifies each message with `openssl cms -verify`, reads the SignerInfo with `openssl cms -cmsout -print` (RSASSA-PSS with the hash, MGF1 and salt length written explicitly, salt = hash length) and answers with a signed receipt carrying the MIC `openssl dgst` computes, which delivers the message.
import t from 'tap';
import { bobAndAlicePeer, partner, startSender } from '../helpers/as2.js';
import { sendByHand } from '../helpers/flow.js';
import { headerOf, type PeerRequest } from '../helpers/http-peer.js';
import { startTestServer } from '../helpers/server.js';
import { asMessage, opensslDigest, opensslReceipt, opensslVerifies } from '../helpers/smime.js';
import { makeParties } from './parties.js';

const server = await startTestServer(t);
const parties = makeParties();
t.teardown(() => parties.remove());
const { fixtures } = parties;
const openssl = fixtures.openssl;

/** What the peer read from each message, by Message-ID. */
const seen = new Map<string, { printed: string; mic: string }>();

function answer(request: PeerRequest, index: number) {
  const messageId = headerOf(request, 'message-id')!;
  const contentType = headerOf(request, 'content-type')!;
  const micalg = /micalg=([\w-]+)/.exec(contentType)![1]!;
  // openssl's digest names: sha256 for micalg sha-256; sha3-256 as written.
  const md = micalg.startsWith('sha3-') ? micalg : micalg.replace('-', '');
  const message = asMessage({ 'Content-Type': contentType }, request.body);
  opensslVerifies(fixtures, message, contentType, 'bob.crt');
  openssl('cms -cmsout -print -inform DER -in signature.der -out printed.txt');
  const mic = `${opensslDigest(fixtures, md, 'signed-part.bin')}, ${micalg}`;
  seen.set(messageId, { printed: fixtures.read('printed.txt').toString(), mic });
  const mdn = opensslReceipt(fixtures, { messageId, mic, signer: 'alice', md: 'sha256' });
  return { status: 200, headers: { 'Message-ID': `<r${index}@alice>`, ...mdn.headers }, body: mdn.body };
}

const { peer, aliceCert } = await bobAndAlicePeer(t, server, fixtures, answer);
await startSender(server, 'out');

/** Partner `name` (AS2 id: the name in capitals) at the openssl peer, only signing, with `algorithm`; bob sends it `file`. */
async function sendSigned(name: string, algorithm: string, file: { name: string; content: string }) {
  await partner(server, name, name.toUpperCase(), peer.url, aliceCert, {
    signing_algorithm: algorithm,
    encryption_algorithm: 'none',
    compression: false,
    mdn_mode: 'sync',
    mdn_signed: true,
  });
  return sendByHand(server, { from: 'bob', to: name, target: 'out' }, file);
}

for (const [bits, saltHex] of [
  ['256', '20'],
  ['384', '30'],
  ['512', '40'],
] as const) {
  t.test(`rsa-pss-sha${bits}: openssl verifies it and reads explicit PSS parameters`, async (t) => {
    const sent = await sendSigned(`alice${bits}`, `rsa-pss-sha${bits}`, {
      name: `pss${bits}.edi`,
      content: "UNB+UNOC:3+BOB+ALICE'\r\n",
    });
    t.equal(sent.status, 'Delivered', sent.deliveries[0]?.last_error);
    const peerView = seen.get(sent.protocols.as2.message_id)!;
    t.ok(peerView, 'openssl verified the message');
    t.equal(sent.protocols.as2.mic, peerView.mic, 'pier and openssl computed the same MIC');
    const printed = peerView.printed;
    // The SignerInfo's signatureAlgorithm, which openssl prints as an ASN.1 dump.
    const algorithm = printed.slice(
      printed.lastIndexOf('signatureAlgorithm:'),
      printed.lastIndexOf('signature:'),
    );
    t.match(algorithm, /algorithm: rsassaPss/);
    t.match(
      algorithm,
      new RegExp(`cont \\[ 0 \\][^]*?OBJECT\\s+:sha${bits}[^]*?cont \\[ 1 \\]`),
      'hash written',
    );
    t.match(algorithm, new RegExp(`:mgf1[^]*?OBJECT\\s+:sha${bits}`), 'MGF1 with the same hash written');
    t.match(
      algorithm,
      new RegExp(`cont \\[ 2 \\]\\s*\\n.*INTEGER\\s+:${saltHex}\\s*\\n`),
      'salt = hash length',
    );
    t.match(sent.protocols.as2.signature, { algorithm: `rsa-pss-sha${bits}` });
  });
}

for (const bits of ['256', '384', '512'] as const) {
  t.test(`sha3-${bits} with RSA: openssl verifies it and reads SHA3-${bits} as the digest`, async (t) => {
    const sent = await sendSigned(`carol${bits}`, `sha3-${bits}`, {
      name: `sha3-${bits}.edi`,
      content: "UNB+UNOC:3+BOB+CAROL'\r\n",
    });
    t.equal(sent.status, 'Delivered', sent.deliveries[0]?.last_error);
    const peerView = seen.get(sent.protocols.as2.message_id)!;
    t.ok(peerView, 'openssl verified the message');
    t.equal(sent.protocols.as2.mic, peerView.mic, 'pier and openssl computed the same MIC');
    t.match(peerView.mic, new RegExp(`, sha3-${bits}$`), 'the MIC is named sha3-' + bits);
    t.match(
      peerView.printed,
      new RegExp(`digestAlgorithm:\\s*\\n\\s*algorithm: sha3-${bits} `),
      'digest SHA3',
    );
    t.match(peerView.printed, /signatureAlgorithm:\s*\n\s*algorithm: rsaEncryption /, 'RSA PKCS#1 v1.5');
    t.match(sent.protocols.as2.signature, { algorithm: `sha3-${bits}` });
  });
}

t.test('an unknown signing_algorithm is refused with 400', async (t) => {
  const made = await server.call('POST', '/api/v1/partners', { body: { name: 'carol' } });
  const answer = await server.call('POST', '/api/v1/as2/remote-profiles', {
    body: {
      business_partner_id: made.body.data.id,
      as2id: 'CAROL',
      endpoint: peer.url,
      partner_certificate_id: aliceCert,
      signing_algorithm: 'rsa-pss-sha1',
    },
  });
  t.equal(answer.status, 400);
  t.match(answer.body.error.details, { signing_algorithm: /rsa-pss-sha256/ });
});
