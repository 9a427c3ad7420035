// Covers ECDH ephemeral-static EnvelopedData (RFC 5753) end to end with `openssl cms` and EC keys on both sides, through the REST API and HTTP: messages openssl signs with the partner's P-256 key and encrypts to pier's P-256 or P-384 encryption certificate (each KDF, CBC and GCM, DER and -stream BER, small ones opened in memory and large ones from the store) are processed by a running receiver, which names the key agreement in protocols.as2 and answers with a receipt openssl verifies carrying the MIC `openssl dgst` computes; messages pier's sender encrypts to the partner's P-256 or P-384 certificate (small ones packed in memory, large ones streamed) are decrypted by `openssl cms -decrypt` with the partner's EC key, verified, and answered with a receipt signed by that EC key, which delivers them.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import {
  bobSendsAndReceives,
  messageByAs2Id,
  partner,
  storeCertificate,
  syncSigned,
} from '../helpers/as2.js';
import { makeFixtures } from '../helpers/certificates.js';
import { sendByHand } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import {
  opensslMic,
  postForReceipt,
  receiptProcessed,
  startOpensslPeer,
  writeFixture,
} from '../helpers/smime.js';

const server = await startTestServer(t);
const fixtures = makeFixtures(t);
const openssl = fixtures.openssl;
for (const [name, curve] of [
  ['bob256', 'P-256'],
  ['bob384', 'P-384'],
  ['alice256', 'P-256'],
  ['alice384', 'P-384'],
] as const) {
  fixtures.ec(name, curve, '-addext', 'keyUsage=critical,digitalSignature,keyAgreement');
}

// bob signs with its P-256 key and decrypts with its P-256 and P-384 keys.
const { url } = await bobSendsAndReceives(server, fixtures, 'bob256', ['bob256', 'bob384']);
const alice256 = await storeCertificate(server, fixtures, 'alice256', false);
const alice384 = await storeCertificate(server, fixtures, 'alice384', false);
const signedEncrypted = { ...syncSigned, encryption_algorithm: 'aes128-cbc' };
await partner(server, 'alice', 'ALICE', url, alice256, signedEncrypted);

/** A MIME entity of `bytes` random bytes: above 1 MiB the receiver opens it from the store. */
function entityOf(bytes: number): Buffer {
  return Buffer.concat([
    Buffer.from(
      'Content-Type: application/octet-stream\r\nContent-Transfer-Encoding: binary\r\n' +
        'Content-Disposition: attachment; filename="po.bin"\r\n\r\n',
    ),
    randomBytes(bytes),
  ]);
}

const inbound: {
  label: string;
  to: string;
  cipher: string;
  keyopt: string[];
  stream: boolean;
  bytes: number;
  scheme: string;
}[] = [
  {
    label: 'P-256, openssl default KDF (SHA-1), AES-128-CBC, small',
    to: 'bob256',
    cipher: '-aes128',
    keyopt: [],
    stream: false,
    bytes: 2000,
    scheme: 'ecdh-sha1kdf',
  },
  {
    label: 'P-256, SHA-256 KDF, AES-256-GCM, -stream, large',
    to: 'bob256',
    cipher: '-aes-256-gcm',
    keyopt: ['ecdh_kdf_md:sha256'],
    stream: true,
    bytes: 1536 * 1024,
    scheme: 'ecdh-sha256kdf',
  },
  {
    label: 'P-384, SHA-384 KDF, AES-256-CBC, small',
    to: 'bob384',
    cipher: '-aes256',
    keyopt: ['ecdh_kdf_md:sha384'],
    stream: false,
    bytes: 3000,
    scheme: 'ecdh-sha384kdf',
  },
  {
    label: 'P-384, SHA-512 KDF, AES-128-GCM, -stream, large',
    to: 'bob384',
    cipher: '-aes-128-gcm',
    keyopt: ['ecdh_kdf_md:sha512'],
    stream: true,
    bytes: 1200 * 1024,
    scheme: 'ecdh-sha512kdf',
  },
];

const enveloped = 'application/pkcs7-mime; smime-type=enveloped-data; name=smime.p7m';
let number = 0;
for (const c of inbound) {
  t.test(`openssl → pier: signed by alice's P-256 key, encrypted to ${c.label}`, async (t) => {
    writeFixture(fixtures, 'entity.mime', entityOf(c.bytes));
    openssl(
      'cms -sign -binary -in entity.mime -signer alice256.crt -inkey alice256.key -md sha256 -out signed.eml',
    );
    openssl(
      `cms -encrypt -binary -in signed.eml ${c.cipher} -recip ${c.to}.crt -outform DER -out enc.der`,
      ...c.keyopt.flatMap((option) => ['-keyopt', option]),
      ...(c.stream ? ['-stream'] : []),
    );
    const id = `<ecdh-${++number}@alice.example>`;
    // pier's receipt, signed with its P-256 key, verified by openssl.
    const posted = await postForReceipt(fixtures, url, 'bob256.crt', {
      from: 'ALICE',
      id,
      headers: { 'Content-Type': enveloped },
      body: fixtures.read('enc.der'),
    });
    receiptProcessed(t, posted, opensslMic(fixtures, 'sha256', 'entity.mime'));
    const message = await messageByAs2Id(server, id);
    t.equal(message.status, 'NotRouted', 'received and opened; no route takes it further');
    t.match(message.protocols.as2, {
      encrypted: true,
      encryption: { key_transport: c.scheme },
      signed: true,
      signature: { scheme: 'ecdsa' },
    });
  });
}

t.test('openssl → pier: encrypted to an EC certificate pier does not hold is refused by name', async (t) => {
  writeFixture(fixtures, 'entity.mime', entityOf(100));
  openssl(
    'cms -sign -binary -in entity.mime -signer alice256.crt -inkey alice256.key -md sha256 -out signed.eml',
  );
  openssl('cms -encrypt -binary -in signed.eml -aes128 -recip alice384.crt -outform DER -out enc.der');
  const answer = await fetch(url, {
    method: 'POST',
    headers: {
      'AS2-Version': '1.2',
      'AS2-From': 'ALICE',
      'AS2-To': 'BOB',
      'Message-ID': '<ecdh-wrong@alice.example>',
      'Content-Type': enveloped,
      'Disposition-Notification-To': 'edi@alice.example',
    },
    body: new Uint8Array(fixtures.read('enc.der')),
  });
  t.equal(answer.status, 200);
  t.match(
    await answer.text(),
    /Disposition: automatic-action\/MDN-sent-automatically; processed\/error: decryption-failed/i,
  );
  const message = await messageByAs2Id(server, '<ecdh-wrong@alice.example>');
  t.equal(message.status, 'Refused');
  const serial = openssl('x509 -in alice384.crt -noout -serial').trim().replace('serial=', '');
  t.match(
    JSON.stringify(message),
    new RegExp(`encrypted for the certificate with serial ${serial}; pier holds .*bob256.*bob384`),
    'the error names the certificate the partner used and the ones pier holds',
  );
});

/** openssl decrypts with the key of the partner a message is for and notes the KDF and key wrap it names. */
const peer = await startOpensslPeer(t, fixtures, {
  signerCert: 'bob256.crt',
  keys: { ECOUT256: 'alice256', ECOUT384: 'alice384' },
  open(request, key) {
    writeFixture(fixtures, 'in.der', request.body);
    const dump = openssl('asn1parse -inform DER -in in.der -dlimit 16');
    const scheme = /:(dhSinglePass-\S+-scheme)/.exec(dump)?.[1] ?? 'none';
    const wrap = /:(id-aes\d+-wrap)/.exec(dump)?.[1] ?? 'none';
    openssl(
      `cms -decrypt -binary -inform DER -in in.der -recip ${key}.crt -inkey ${key}.key -out decrypted.eml`,
    );
    return { entity: fixtures.read('decrypted.eml'), noted: { scheme, wrap } };
  },
  receiptMd: 'sha256',
});
await partner(server, 'ecout256', 'ECOUT256', peer.url, alice256, signedEncrypted);
await partner(server, 'ecout384', 'ECOUT384', peer.url, alice384, {
  ...signedEncrypted,
  encryption_algorithm: 'aes256-gcm',
});

for (const [to, size, scheme, wrap] of [
  ['ecout256', 'small', 'dhSinglePass-stdDH-sha256kdf-scheme', 'id-aes128-wrap'],
  ['ecout256', 'large', 'dhSinglePass-stdDH-sha256kdf-scheme', 'id-aes128-wrap'],
  ['ecout384', 'small', 'dhSinglePass-stdDH-sha384kdf-scheme', 'id-aes256-wrap'],
  ['ecout384', 'large', 'dhSinglePass-stdDH-sha384kdf-scheme', 'id-aes256-wrap'],
] as const) {
  t.test(`pier → openssl: ${size} document encrypted to ${to}'s certificate`, async (t) => {
    // Above 1 MiB the sender packs from a file (as2/stream/), below it in memory.
    const content = size === 'large' ? randomBytes(1300 * 1024) : Buffer.from("UNB+UNOC:3+BOB+ALICE'\r\n");
    const sent = await sendByHand(
      server,
      { from: 'bob', to, target: 'out' },
      { name: `${to}-${size}.bin`, content },
    );
    const read = peer.deliveredAndRead(
      t,
      sent,
      'openssl decrypted the message with the EC key and verified it',
    );
    t.equal(read?.scheme, scheme, 'the KDF matched to the curve');
    t.equal(read?.wrap, wrap, 'the AES key wrap matched to the content key');
  });
}
