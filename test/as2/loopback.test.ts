// Covers pier → pier through the library: the matrix sign {none, sha1, sha256, sha384, sha512} × encrypt {none, 3des, AES-CBC, AES-GCM} × compress {off, before-sign, after-sign}, plus the per-partner options (PSS, OAEP, no signed attributes, base64, filename forms).
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { packOutgoing, LegacyAlgorithmError, type PackOptions } from '../../actors/as2/pack.js';
import { unpackIncoming } from '../../actors/as2/unpack.js';
import { sameMic } from '../../actors/as2/mic.js';
import type { ContentEncryption } from '../../pki/algorithms/encryption-algorithms.js';
import type { MicAlgorithm } from '../../pki/algorithms/mic-algorithms.js';
import { makeParties } from './parties.js';

const parties = makeParties();
t.teardown(() => parties.remove());
const { alice, bob } = parties;

const receive = { decryptionKeys: [bob], verificationCerts: [alice.certificate] };
// An EDI-like document with CRLF, bare LF, a trailing newline and binary bytes.
const payload = Buffer.concat([
  Buffer.from('ISA*00*          *00*~\r\nGS*PO*A*B~\nST*850*0001~\r\n'),
  randomBytes(2000),
  Buffer.from('\r\nSE*2*0001~\n'),
]);

const signs: (MicAlgorithm | null)[] = [null, 'sha-1', 'sha-256', 'sha-384', 'sha-512'];
const encrypts: (ContentEncryption | null)[] = [
  null,
  '3des',
  'aes128-cbc',
  'aes192-cbc',
  'aes256-cbc',
  'aes128-gcm',
  'aes256-gcm',
];
const compressions = ['off', 'before-sign', 'after-sign'] as const;

t.test('the full matrix round-trips with equal MICs on both sides', async (t) => {
  let combinations = 0;
  for (const sign of signs) {
    for (const encrypt of encrypts) {
      for (const compress of compressions) {
        const label = `sign ${sign ?? 'none'}, encrypt ${encrypt ?? 'none'}, compress ${compress}`;
        const packed = packOutgoing(payload, {
          contentType: 'application/edi-x12',
          filename: 'po 850.edi',
          compress,
          sign: sign
            ? { algorithm: sign, certificate: alice.certificate, privateKey: alice.privateKey }
            : null,
          encrypt: encrypt ? { algorithm: encrypt, certificate: bob.certificate } : null,
        });
        const got = unpackIncoming(packed.body, packed.headers, {
          ...receive,
          requireSigned: sign !== null,
          requireEncrypted: encrypt !== null,
          micAlgorithm: packed.mic.algorithm,
        });
        const ok =
          got.payload.equals(payload) &&
          got.filename === 'po 850.edi' &&
          got.contentType === 'application/edi-x12' &&
          sameMic(got.mic, packed.mic) &&
          got.signature?.digestAlgorithm === (sign ?? undefined) &&
          got.encryption?.algorithm === (encrypt ?? undefined) &&
          got.compression === (compress === 'off' ? null : sign ? compress : 'unsigned');
        t.ok(ok, label);
        combinations++;
      }
    }
  }
  t.equal(combinations, 105);
});

t.test('layers come out in the order they were put on', async (t) => {
  const sign = {
    algorithm: 'sha-256' as const,
    certificate: alice.certificate,
    privateKey: alice.privateKey,
  };
  const encrypt = { algorithm: 'aes256-cbc' as const, certificate: bob.certificate };
  const before = packOutgoing(payload, { compress: 'before-sign', sign, encrypt });
  t.same(unpackIncoming(before.body, before.headers, receive).layers, ['encrypted', 'signed', 'compressed']);
  const after = packOutgoing(payload, { compress: 'after-sign', sign, encrypt });
  t.same(unpackIncoming(after.body, after.headers, receive).layers, ['encrypted', 'compressed', 'signed']);
  t.equal(
    before.headers['Content-Type'],
    'application/pkcs7-mime; smime-type=enveloped-data; name=smime.p7m',
  );
  const gcm = packOutgoing(payload, { encrypt: { ...encrypt, algorithm: 'aes128-gcm' } });
  t.match(gcm.headers['Content-Type'], /smime-type=authEnveloped-data/);
  const signedOnly = packOutgoing(payload, { sign });
  t.match(
    signedOnly.headers['Content-Type'],
    /^multipart\/signed; protocol="application\/pkcs7-signature"; micalg=sha-256; boundary="/,
  );
  t.equal(signedOnly.headers['MIME-Version'], '1.0');
});

t.test('per-partner options', async (t) => {
  const base = {
    algorithm: 'sha-256' as const,
    certificate: alice.certificate,
    privateKey: alice.privateKey,
  };
  const cases: [string, PackOptions, (got: ReturnType<typeof unpackIncoming>) => boolean][] = [
    ['RSASSA-PSS', { sign: { ...base, scheme: 'rsa-pss' } }, (g) => g.signature?.scheme === 'rsa-pss'],
    [
      'RSASSA-PSS without signed attributes',
      { sign: { ...base, scheme: 'rsa-pss', signedAttributes: false } },
      (g) => g.signature?.scheme === 'rsa-pss' && !g.signature.signedAttributes,
    ],
    [
      'no signed attributes (IBM Sterling)',
      { sign: { ...base, signedAttributes: false } },
      (g) => g.signature?.signedAttributes === false && g.signature.algorithmProtection === false,
    ],
    [
      'no CMSAlgorithmProtection',
      { sign: { ...base, algorithmProtection: false } },
      (g) => g.signature?.signedAttributes === true && g.signature.algorithmProtection === false,
    ],
    [
      'RSA-OAEP key transport (BizTalk)',
      { encrypt: { algorithm: 'aes256-cbc', certificate: bob.certificate, keyTransport: 'rsa-oaep' } },
      (g) => g.encryption?.keyTransport === 'rsa-oaep',
    ],
    [
      'RSA-OAEP with SHA-256',
      { encrypt: { algorithm: 'aes128-gcm', certificate: bob.certificate, keyTransport: 'rsa-oaep-sha256' } },
      (g) => g.encryption?.keyTransport === 'rsa-oaep',
    ],
    [
      'base64 transfer encoding',
      { sign: base, transferEncoding: 'base64' },
      (g) => g.payloadHeaders.get('content-transfer-encoding') === 'base64',
    ],
    [
      'a non-ASCII filename (RFC 2231)',
      { sign: base, filename: 'Bestellung Grüße.edi' },
      (g) => g.filename === 'Bestellung Grüße.edi',
    ],
    [
      'a bare token filename',
      { sign: base, filename: 'po.edi', filenameQuoting: 'token' },
      (g) => g.filename === 'po.edi',
    ],
    [
      'rfc3851 micalg spelling',
      { sign: base, micSpelling: 'rfc3851' },
      (g) => g.signature?.digestAlgorithm === 'sha-256',
    ],
    ['plain, no protection at all', {}, (g) => g.layers.length === 0],
  ];
  for (const [label, options, check] of cases) {
    const packed = packOutgoing(payload, options);
    const got = unpackIncoming(packed.body, packed.headers, receive);
    t.ok(got.payload.equals(payload) && sameMic(got.mic, packed.mic) && check(got), label);
  }
  const spelled = packOutgoing(payload, { sign: base, micSpelling: 'rfc3851' });
  t.match(spelled.headers['Content-Type'], /micalg=sha256;/);
  const unsignedMic = packOutgoing(payload, { micAlgorithm: 'sha-512' });
  t.equal(unsignedMic.mic.algorithm, 'sha-512');
  t.equal(unsignedMic.mic.digest.length, 64);
});

t.test('MIC rules of RFC 4130 §7.3.1', async (t) => {
  const { computeMic } = await import('../../actors/as2/mic.js');
  const plain = packOutgoing(payload, { filename: 'x.edi' });
  t.same(plain.mic, computeMic(payload, 'sha-256'), 'unsigned, unencrypted: the content without headers');
  t.same(plain.body, payload);
  const got = unpackIncoming(plain.body, plain.headers, { ...receive, micAlgorithm: 'sha-1' });
  t.same(got.mic, computeMic(payload, 'sha-1'), 'the receiver uses the algorithm asked for');
  const fromOptions = unpackIncoming(
    plain.body,
    {
      ...plain.headers,
      'Disposition-Notification-Options':
        'signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, SHA_384, sha1',
    },
    receive,
  );
  t.equal(
    fromOptions.mic.algorithm,
    'sha-384',
    'or, by default, the one Disposition-Notification-Options prefers',
  );
});

t.test('as2bis: legacy algorithms are not generated', async (t) => {
  const sign = { algorithm: 'sha-1' as const, certificate: alice.certificate, privateKey: alice.privateKey };
  t.throws(() => packOutgoing(payload, { modernOnly: true, sign }), LegacyAlgorithmError);
  t.throws(
    () =>
      packOutgoing(payload, {
        modernOnly: true,
        encrypt: { algorithm: '3des', certificate: bob.certificate },
      }),
    LegacyAlgorithmError,
  );
  t.throws(() => packOutgoing(payload, { modernOnly: true, micAlgorithm: 'md5' }), LegacyAlgorithmError);
  t.ok(packOutgoing(payload, { modernOnly: true, sign: { ...sign, algorithm: 'sha-256' } }));
});

t.test('LF-only messages (RSSBus/CData) verify, over the exact bytes or their CRLF form', async (t) => {
  const crlfDocument = Buffer.from('ISA*00~\r\nGS*PO~\r\nIEA*1~\r\n');
  const sign = {
    algorithm: 'sha-256' as const,
    certificate: alice.certificate,
    privateKey: alice.privateKey,
  };
  // Signed over CRLF lines, sent with every CRLF turned into LF.
  const packed = packOutgoing(crlfDocument, { sign, filename: 'a.edi' });
  const lfBody = Buffer.from(packed.body.toString('latin1').replace(/\r\n/g, '\n'), 'latin1');
  const got = unpackIncoming(lfBody, packed.headers, receive);
  t.equal(got.signature?.canonicalised, true, 'only the CRLF form verified');
  t.ok(sameMic(got.mic, packed.mic), 'and the MIC is the sender’s');
  t.same(got.payload, crlfDocument, 'the document as signed: the bytes the signature vouches for');
  t.equal(got.filename, 'a.edi');

  // Signed over the LF bytes themselves: verified as they are.
  const { signDetached } = await import('../../pki/cms/signed-data.js');
  const entity = Buffer.from(
    'Content-Type: application/edi-x12\nContent-Transfer-Encoding: binary\n\nISA*00~\nIEA*1~\n',
  );
  const signature = signDetached([entity], {
    digest: 'sha-256',
    certificate: alice.certificate,
    privateKey: alice.privateKey,
  });
  const body = Buffer.concat([
    Buffer.from('--b\n'),
    entity,
    Buffer.from('\n--b\nContent-Type: application/pkcs7-signature\nContent-Transfer-Encoding: base64\n\n'),
    Buffer.from(signature.toString('base64').replace(/(.{64})/g, '$1\n')),
    Buffer.from('\n--b--\n'),
  ]);
  const exact = unpackIncoming(
    body,
    { 'content-type': 'multipart/signed; protocol="application/pkcs7-signature"; micalg=sha256; boundary=b' },
    receive,
  );
  t.equal(exact.signature?.canonicalised, false);
  t.same(exact.signature?.signedContent, entity);
  t.same(exact.payload, Buffer.from('ISA*00~\nIEA*1~\n'));
});

t.test('a 3 MiB document crosses the cipher slices; the body chunks are the body', async (t) => {
  const big = randomBytes(3 * 1024 * 1024 + 17);
  for (const algorithm of ['aes256-cbc', 'aes128-gcm', '3des'] as const) {
    const packed = packOutgoing(big, {
      compress: 'after-sign',
      sign: { algorithm: 'sha-256', certificate: alice.certificate, privateKey: alice.privateKey },
      encrypt: { algorithm, certificate: bob.certificate },
    });
    t.equal(packed.bodyLength, packed.body.length);
    t.same(Buffer.concat(packed.bodyChunks as Buffer[]), packed.body);
    const got = unpackIncoming(packed.body, packed.headers, receive);
    t.ok(got.payload.equals(big) && sameMic(got.mic, packed.mic), algorithm);
  }
});

t.test('CMS bodies are read whatever their transfer encoding label says', async (t) => {
  const packed = packOutgoing(payload, {
    encrypt: { algorithm: 'aes128-cbc', certificate: bob.certificate },
  });
  const base64 = Buffer.from(packed.body.toString('base64').replace(/(.{76})/g, '$1\r\n'));
  const variants: [string, Buffer, string | undefined][] = [
    ['binary, labelled binary', packed.body, 'binary'],
    ['binary, labelled base64', packed.body, 'base64'],
    ['base64, labelled base64', base64, 'base64'],
    ['base64, labelled binary', base64, 'binary'],
    ['base64, unlabelled', base64, undefined],
  ];
  for (const [label, body, encoding] of variants) {
    const headers: Record<string, string> = { ...packed.headers };
    delete headers['Content-Transfer-Encoding'];
    if (encoding) headers['Content-Transfer-Encoding'] = encoding;
    t.ok(unpackIncoming(body, headers, receive).payload.equals(payload), label);
  }
});

t.test('certificate dates play no part: an expired and a not-yet-valid certificate still work', async (t) => {
  const { createPrivateKey, X509Certificate } = await import('node:crypto');
  parties.fixtures.dated('expired', '/CN=expired', '20200101000000Z', '20210101000000Z');
  parties.fixtures.dated('future', '/CN=future', '20400101000000Z', '20410101000000Z');
  for (const name of ['expired', 'future']) {
    const certificate = new X509Certificate(parties.fixtures.read(`${name}.crt`));
    const privateKey = createPrivateKey(parties.fixtures.read(`${name}.key`));
    const packed = packOutgoing(payload, {
      sign: { algorithm: 'sha-256', certificate, privateKey },
      encrypt: { algorithm: 'aes128-cbc', certificate },
    });
    const got = unpackIncoming(packed.body, packed.headers, {
      decryptionKeys: [{ certificate, privateKey }],
      verificationCerts: [certificate],
    });
    t.ok(got.payload.equals(payload) && got.signature?.signer === certificate, name);
  }
});
