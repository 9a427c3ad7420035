// Covers receipts: the captured Mendelson and OpenAS2 MDNs parse (and the signed ones verify), pier's own MDNs signed and unsigned round-trip, MIC spellings and comparison, and refusals of damaged receipts.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import YAML from 'yaml';
import { buildMdn } from '../../actors/as2/mdn/build.js';
import { MdnError, parseMdn } from '../../actors/as2/mdn/parse.js';
import { computeMic, formatMic, parseMic, sameMic } from '../../actors/as2/mic.js';
import {
  formatDisposition,
  processed,
  processedWithError,
} from '../../actors/as2/vocabulary/dispositions.js';
import {
  parseDispositionNotificationOptions,
  formatDispositionNotificationOptions,
} from '../../actors/as2/disposition-options.js';
import { makeParties } from './parties.js';

const vectors = path.resolve(import.meta.dirname, '../fixtures/as2-line-endings');
const clientCert = new X509Certificate(readFileSync(path.join(vectors, 'certificates/client.crt')));
const serverCert = new X509Certificate(readFileSync(path.join(vectors, 'certificates/server.crt')));

const parties = makeParties();
t.teardown(() => parties.remove());
const { alice, bob, mallory } = parties;

function capture(name: string): { headers: Record<string, string>; body: Buffer } {
  // Ruby's YAML writes binary bodies as `!binary` (base64).
  const doc = YAML.parse(readFileSync(path.join(vectors, `${name}.yml`), 'utf8'), {
    customTags: [{ tag: '!binary', resolve: (text: string) => Buffer.from(text, 'base64') }],
  }) as { headers: Record<string, string>; body: string | Buffer };
  return {
    headers: doc.headers,
    body: Buffer.isBuffer(doc.body) ? doc.body : Buffer.from(doc.body, 'latin1'),
  };
}

t.test('the captured MDNs', async (t) => {
  const signed = capture('signed_mdn');
  const mendelson = parseMdn(signed.body, signed.headers, { verificationCerts: [serverCert, clientCert] });
  t.equal(mendelson.signature?.verified, true, 'Mendelson’s signed MDN verifies');
  t.equal(mendelson.signature?.signer, clientCert);
  t.equal(formatDisposition(mendelson.disposition!), formatDisposition(processed));
  t.equal(
    mendelson.originalMessageId,
    '<SERVER-20220318-222842-b176dc1a-44fd-4f9c-ac61-813fbb0f579a@server.test-ruby-as2.com>',
  );
  t.equal(mendelson.mic?.digest.toString('base64'), 'oH0vz8s6oS7SoqF01XHsASudN05EPgouF1IFMSNsv30=');
  t.equal(mendelson.mic?.algorithm, 'sha-256');
  t.equal(mendelson.reportingUa, 'mendelson opensource AS2');
  t.equal(mendelson.finalRecipient, 'CLIENT');
  t.match(mendelson.text, /The AS2 message has been received/);
  t.throws(() => parseMdn(signed.body, signed.headers, { verificationCerts: [serverCert] }), {
    name: 'MdnError',
    reason: 'signature',
  });

  const binary = capture('binary_mdn');
  const openas2 = parseMdn(binary.body, binary.headers, { verificationCerts: [clientCert] });
  t.equal(openas2.signature?.verified, true, 'OpenAS2’s MDN with a binary signature part verifies');
  t.equal(openas2.mic?.algorithmName, 'sha256');
  t.equal(openas2.mic?.algorithm, 'sha-256');
  t.equal(openas2.reportingUa, 'OpenAS2 Server v3.3.0@/172.17.0.2:10080');

  const unsigned = capture('unsigned_mdn');
  const refused = parseMdn(unsigned.body, unsigned.headers);
  t.equal(refused.signature, null);
  t.same(refused.disposition?.modifier, { kind: 'error', description: 'unknown-trading-partner' });
  t.equal(refused.mic, null);
  t.match(refused.text, /Sender AS2 id SERVER is unknown/);
  t.throws(() => parseMdn(unsigned.body, unsigned.headers, { requireSigned: true }), {
    name: 'MdnError',
    reason: 'unsigned',
  });
  const noCheck = parseMdn(signed.body, signed.headers);
  t.same(
    noCheck.signature,
    { verified: false, signer: null, digestAlgorithm: null },
    'no certificates: read, not verified',
  );
});

t.test('pier’s receipts round-trip, signed and unsigned', async (t) => {
  const mic = computeMic(Buffer.from('the signed entity'), 'sha-256');
  const fields = {
    reportingUa: 'pier',
    originalRecipient: 'BOB AS2',
    finalRecipient: 'BOB AS2',
    originalMessageId: '<m-1@alice.example>',
    disposition: processed,
    mic,
    micSpelling: 'SHA256',
    text: 'The message was received.\nGrüße from pier.',
  };
  const unsigned = buildMdn(fields);
  t.match(unsigned.contentType, /^multipart\/report; report-type=disposition-notification; boundary="/);
  const read = parseMdn(unsigned.body, unsigned.headers);
  t.equal(read.mic?.algorithmName, 'SHA256', 'the partner’s own spelling is echoed');
  t.ok(read.mic && sameMic(read.mic, mic));
  t.equal(read.originalRecipient, 'BOB AS2');
  t.equal(read.text, 'The message was received.\r\nGrüße from pier.');
  t.match(unsigned.body.toString(), /Disposition: automatic-action\/MDN-sent-automatically; processed\r\n/);

  const signed = buildMdn(
    { ...fields, disposition: processedWithError('decryption-failed'), mic: null },
    { digest: 'sha-256', certificate: bob.certificate, privateKey: bob.privateKey },
  );
  t.equal(signed.signed, true);
  const verified = parseMdn(signed.body, signed.headers, {
    verificationCerts: [bob.certificate],
    requireSigned: true,
  });
  t.equal(verified.signature?.verified, true);
  t.same(verified.disposition?.modifier, { kind: 'error', description: 'decryption-failed' });
  t.equal(verified.mic, null);
  t.throws(() => parseMdn(signed.body, signed.headers, { verificationCerts: [mallory.certificate] }), {
    name: 'MdnError',
    reason: 'signature',
  });
  const tampered = Buffer.from(
    signed.body.toString('latin1').replace('decryption-failed', 'decryption-faileD'),
    'latin1',
  );
  t.throws(() => parseMdn(tampered, signed.headers, { verificationCerts: [bob.certificate] }), {
    name: 'MdnError',
    reason: 'signature',
  });
  t.throws(() => buildMdn({ ...fields, originalMessageId: '<x>\r\nInjected: 1' }), /line break/);
});

t.test('damaged receipts are MdnErrors', async (t) => {
  const headers = { 'content-type': 'multipart/report; report-type=disposition-notification; boundary="b"' };
  const cases: [string, Buffer, Record<string, string>][] = [
    ['no disposition part', Buffer.from('--b\r\nContent-Type: text/plain\r\n\r\nhi\r\n--b--\r\n'), headers],
    [
      'truncated',
      Buffer.from('--b\r\nContent-Type: message/disposition-notification\r\n\r\nDisposition: x'),
      headers,
    ],
    ['not a report', Buffer.from('hello'), { 'content-type': 'text/plain' }],
    ['signed without boundary', Buffer.from('x'), { 'content-type': 'multipart/signed' }],
  ];
  for (const [label, body, h] of cases) t.throws(() => parseMdn(body, h), MdnError, label);
  const odd = parseMdn(
    Buffer.from(
      '--b\r\nContent-Type: message/disposition-notification\r\n\r\nDisposition: exploded\r\n--b--\r\n',
    ),
    headers,
  );
  t.equal(odd.disposition, null, 'an unreadable Disposition is null, not a crash');
  t.equal(odd.fields.get('disposition'), 'exploded');
});

t.test('MIC text forms and comparison', async (t) => {
  const mic = computeMic(Buffer.from('x'), 'sha-1');
  t.equal(formatMic(mic), `${mic.digest.toString('base64')}, sha-1`);
  t.equal(formatMic(mic, 'rfc3851'), `${mic.digest.toString('base64')}, sha1`);
  t.equal(formatMic(mic, 'SHA_1'), `${mic.digest.toString('base64')}, SHA_1`);
  t.equal(
    formatMic(mic, 'sha256'),
    `${mic.digest.toString('base64')}, sha-1`,
    'a spelling of another algorithm is ignored',
  );
  for (const spelling of ['sha1', 'SHA1', 'sha-1', 'sha_1', 'SHA-1']) {
    const received = parseMic(`${mic.digest.toString('base64')} , ${spelling}`)!;
    t.ok(sameMic(received, mic), spelling);
  }
  t.notOk(sameMic(parseMic(`${mic.digest.toString('base64')}, sha256`)!, mic), 'another algorithm');
  const other = computeMic(Buffer.from('y'), 'sha-1');
  t.notOk(sameMic(other, mic), 'another digest');
  t.equal(parseMic('not a mic'), null);
  t.equal(parseMic('abc!, sha1'), null);
  t.equal(parseMic(`${mic.digest.toString('base64')}, sha3-224`)?.algorithm, null);
  t.equal(parseMic(`${mic.digest.toString('base64')}, sha3-256`)?.algorithm, 'sha3-256');
});

t.test('Disposition-Notification-Options', async (t) => {
  const rfc = parseDispositionNotificationOptions(
    'signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha1, md5',
  );
  t.same(rfc.signedReceipt, { importance: 'optional' });
  t.same(rfc.chosen, { algorithm: 'sha-1', name: 'sha1' });
  const cleo = parseDispositionNotificationOptions(
    'Signed-Receipt-Protocol=Required,PKCS7-Signature;Signed-Receipt-MicAlg=Required,SHA_256',
  );
  t.same(cleo.signedReceipt, { importance: 'required' });
  t.same(cleo.chosen, { algorithm: 'sha-256', name: 'SHA_256' });
  const unknownFirst = parseDispositionNotificationOptions(
    'signed-receipt-micalg=optional, sha3-224, SHA-384',
  );
  t.equal(unknownFirst.chosen?.algorithm, 'sha-384');
  t.equal(unknownFirst.signedReceipt, null);
  const impossible = parseDispositionNotificationOptions('signed-receipt-micalg=required, sha3-224');
  t.same(parseDispositionNotificationOptions('signed-receipt-micalg=required, sha3-512').chosen, {
    algorithm: 'sha3-512',
    name: 'sha3-512',
  });
  t.equal(impossible.unsupportedRequired, 'signed-receipt-micalg');
  const pgp = parseDispositionNotificationOptions('signed-receipt-protocol=required, pgp-signature');
  t.equal(pgp.unsupportedRequired, 'signed-receipt-protocol');
  t.same(parseDispositionNotificationOptions(undefined).chosen, null);
  t.same(parseDispositionNotificationOptions('signed-receipt-micalg=sha256').chosen?.algorithm, 'sha-256');
  t.equal(
    formatDispositionNotificationOptions(['sha-256', 'sha-1'], 'rfc3851'),
    'signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha256, sha1',
  );
});

t.test('the same options header read twice gives the same frozen answer', async (t) => {
  const header = 'signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha256';
  const first = parseDispositionNotificationOptions(header);
  const again = parseDispositionNotificationOptions(header);
  t.equal(again, first, 'read once per distinct header');
  t.ok(
    Object.isFrozen(first) && Object.isFrozen(first.chosen),
    'a shared answer cannot be changed by a caller',
  );
  t.same(first.chosen, { algorithm: 'sha-256', name: 'sha256' });
  const other = parseDispositionNotificationOptions(header.replace('sha256', 'sha384'));
  t.equal(other.chosen?.algorithm, 'sha-384', 'a different header is read afresh');
  for (let i = 0; i < 300; i++)
    parseDispositionNotificationOptions(`signed-receipt-micalg=optional, sha${i}`);
  t.same(
    parseDispositionNotificationOptions(header).chosen,
    first.chosen,
    'still right after the cache is emptied',
  );
});

t.test('alice reads the receipt bob builds for her message', async (t) => {
  const { packOutgoing } = await import('../../actors/as2/pack.js');
  const { unpackIncoming } = await import('../../actors/as2/unpack.js');
  const packed = packOutgoing(Buffer.from('ST*997~'), {
    sign: { algorithm: 'sha-384', certificate: alice.certificate, privateKey: alice.privateKey },
    encrypt: { algorithm: 'aes256-gcm', certificate: bob.certificate },
  });
  const options = formatDispositionNotificationOptions(['sha-384']);
  const got = unpackIncoming(
    packed.body,
    { ...packed.headers, 'disposition-notification-options': options },
    {
      decryptionKeys: [bob],
      verificationCerts: [alice.certificate],
    },
  );
  const mdn = buildMdn(
    {
      reportingUa: 'pier',
      originalRecipient: 'BOB',
      finalRecipient: 'BOB',
      originalMessageId: '<1@alice>',
      disposition: processed,
      mic: got.mic,
      text: 'ok',
    },
    { digest: 'sha-256', certificate: bob.certificate, privateKey: bob.privateKey },
  );
  const receipt = parseMdn(mdn.body, mdn.headers, {
    verificationCerts: [bob.certificate],
    requireSigned: true,
  });
  t.ok(receipt.mic && sameMic(receipt.mic, packed.mic), 'the returned MIC equals the one alice computed');
});
