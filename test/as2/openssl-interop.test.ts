// Covers interoperability with an implementation pier did not write, Debian's `openssl cms`: what pier signs and encrypts openssl verifies and decrypts (with equal MICs), what openssl signs and encrypts pier accepts, and an MDN signed by openssl verifies.
import { createHash } from 'node:crypto';
import { deflateSync, inflateSync } from 'node:zlib';
import t from 'tap';
import { buildReport } from '../../actors/as2/mdn/build.js';
import { parseMdn } from '../../actors/as2/mdn/parse.js';
import { buildEntity, joinChunks } from '../../actors/as2/mime/build.js';
import { parseEntity } from '../../actors/as2/mime/parse.js';
import { packOutgoing } from '../../actors/as2/pack.js';
import { unpackIncoming } from '../../actors/as2/unpack.js';
import { processed } from '../../actors/as2/vocabulary/dispositions.js';
import type { ContentEncryption, KeyTransport } from '../../pki/algorithms/encryption-algorithms.js';
import { micAlgorithms, type MicAlgorithm } from '../../pki/algorithms/mic-algorithms.js';
import { asHttp, asMessage, opensslVerifies, writeFixture } from '../helpers/smime.js';
import { makeParties } from './parties.js';

const parties = makeParties();
t.teardown(() => parties.remove());
const { alice, bob, fixtures } = parties;
const openssl = fixtures.openssl;
const write = (name: string, bytes: Buffer | string) => writeFixture(fixtures, name, bytes);

const payload = Buffer.from('ISA*00*          *00*~\r\nGS*PO*ALICE*BOB~\nST*850*0001~\r\nSE*3*0001~\n');
const digests: MicAlgorithm[] = ['sha-1', 'sha-224', 'sha-256', 'sha-384', 'sha-512'];
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest();

const receive = { decryptionKeys: [bob], verificationCerts: [alice.certificate] };

/** openssl verifies what alice signed (see opensslVerifies for why the part is taken out). */
const verifiedByOpenssl = (message: Buffer, contentType: string) =>
  opensslVerifies(fixtures, message, contentType, 'alice.crt');

t.test('pier signs, openssl verifies, and the MIC is openssl’s digest of the signed content', async (t) => {
  for (const digest of digests) {
    for (const variant of [
      { scheme: 'rsa-pkcs1' as const },
      { scheme: 'rsa-pss' as const },
      { scheme: 'rsa-pkcs1' as const, signedAttributes: false },
      { scheme: 'rsa-pss' as const, signedAttributes: false },
      { scheme: 'rsa-pkcs1' as const, algorithmProtection: false },
    ]) {
      const label = `${digest} ${JSON.stringify(variant)}`;
      const packed = packOutgoing(payload, {
        filename: 'po.edi',
        sign: { algorithm: digest, certificate: alice.certificate, privateKey: alice.privateKey, ...variant },
      });
      const signed = verifiedByOpenssl(asMessage(packed.headers, packed.body), packed.contentType);
      t.same(parseEntity(signed).body, payload, `${label}: openssl verifies the document`);
      openssl(`dgst -${micAlgorithms[digest].nodeHash} -binary -out digest.bin signed-part.bin`);
      t.same(packed.mic.digest, fixtures.read('digest.bin'), `${label}: MIC = openssl dgst`);
    }
  }
  // And openssl's own S/MIME reader takes pier's multipart/signed end to end (CRLF document).
  const crlf = Buffer.from('UNB+UNOC:3+ALICE+BOB\r\nUNZ+1\r\n');
  const packed = packOutgoing(crlf, {
    sign: { algorithm: 'sha-256', certificate: alice.certificate, privateKey: alice.privateKey },
  });
  write('whole.eml', asMessage(packed.headers, packed.body));
  openssl('cms -verify -in whole.eml -CAfile alice.crt -purpose any -out whole.out');
  t.same(parseEntity(fixtures.read('whole.out')).body, crlf);
});

t.test('pier encrypts, openssl decrypts', async (t) => {
  const ciphers: ContentEncryption[] = [
    '3des',
    'aes128-cbc',
    'aes192-cbc',
    'aes256-cbc',
    'aes128-gcm',
    'aes192-gcm',
    'aes256-gcm',
  ];
  const transports: KeyTransport[] = ['rsa-pkcs1', 'rsa-oaep', 'rsa-oaep-sha256'];
  for (const algorithm of ciphers) {
    for (const keyTransport of transports) {
      const packed = packOutgoing(payload, {
        filename: 'po.edi',
        sign: { algorithm: 'sha-256', certificate: alice.certificate, privateKey: alice.privateKey },
        encrypt: { algorithm, certificate: bob.certificate, keyTransport },
      });
      write('pier-encrypted.der', packed.body);
      openssl(
        'cms -decrypt -binary -inform DER -in pier-encrypted.der -inkey bob.key -recip bob.crt -out decrypted.eml',
      );
      const decrypted = fixtures.read('decrypted.eml');
      const signed = verifiedByOpenssl(decrypted, parseEntity(decrypted).headers.get('content-type')!);
      t.same(parseEntity(signed).body, payload, `${algorithm} ${keyTransport}`);
      t.same(packed.mic.digest, sha256(signed), `${algorithm} ${keyTransport}: MIC`);
    }
  }
});

t.test('pier compresses; openssl asn1parse reads the CompressedData and node:zlib its content', async (t) => {
  for (const compress of ['before-sign', 'after-sign'] as const) {
    const packed = packOutgoing(payload, {
      filename: 'po.edi',
      compress,
      sign: { algorithm: 'sha-256', certificate: alice.certificate, privateKey: alice.privateKey },
      encrypt: { algorithm: 'aes128-cbc', certificate: bob.certificate },
    });
    write('pier-compressed.der', packed.body);
    openssl(
      'cms -decrypt -binary -inform DER -in pier-compressed.der -inkey bob.key -recip bob.crt -out decrypted.eml',
    );
    let compressed = fixtures.read('decrypted.eml');
    if (compress === 'before-sign') {
      compressed = verifiedByOpenssl(compressed, parseEntity(compressed).headers.get('content-type')!);
    }
    const entity = parseEntity(compressed);
    t.match(entity.headers.get('content-type'), /application\/pkcs7-mime; smime-type=compressed-data/);
    write('compressed.der', entity.body);
    const dump = openssl('asn1parse -inform DER -in compressed.der');
    t.match(dump, /:id-smime-ct-compressedData/, `${compress}: content type`);
    t.match(dump, /:zlib compression/, `${compress}: algorithm`);
    // The last OCTET STRING holds the zlib stream: "<offset>:d=.. hl=<h> l=<n> prim: OCTET STRING".
    const octets = [...dump.matchAll(/^\s*(\d+):d=\d+\s+hl=(\d+)\s+l=\s*(\d+) prim: OCTET STRING/gm)].pop()!;
    const start = Number(octets[1]) + Number(octets[2]);
    const inflated = inflateSync(entity.body.subarray(start, start + Number(octets[3])));
    if (compress === 'before-sign')
      t.same(parseEntity(inflated).body, payload, 'the compressed entity is the document');
    else {
      const signed = verifiedByOpenssl(inflated, parseEntity(inflated).headers.get('content-type')!);
      t.same(parseEntity(signed).body, payload, 'the compressed entity is the signed message');
    }
  }
});

const entity = joinChunks(
  buildEntity(
    [
      ['Content-Type', 'application/edi-x12'],
      ['Content-Transfer-Encoding', 'binary'],
      ['Content-Disposition', 'attachment; filename="po.edi"'],
    ],
    payload,
  ),
);

t.test(
  'openssl signs (every digest, PKCS#1 and PSS, with and without attributes), pier verifies',
  async (t) => {
    write('entity.mime', entity);
    for (const digest of digests) {
      const md = micAlgorithms[digest].nodeHash;
      for (const extra of [[], ['-noattr'], ['-nosmimecap'], ['-keyopt', 'rsa_padding_mode:pss']]) {
        const label = `${digest} ${extra.join(' ') || 'defaults'}`;
        openssl(
          `cms -sign -binary -in entity.mime -signer alice.crt -inkey alice.key -md ${md} -out openssl-signed.eml`,
          ...extra,
        );
        const { headers, body } = asHttp(fixtures.read('openssl-signed.eml'));
        const got = unpackIncoming(body, headers, { ...receive, requireSigned: true });
        t.same(got.payload, payload, `${label}: document`);
        t.equal(got.filename, 'po.edi');
        t.equal(got.signature?.digestAlgorithm, digest);
        t.equal(got.signature?.scheme, extra.includes('rsa_padding_mode:pss') ? 'rsa-pss' : 'rsa-pkcs1');
        t.equal(got.signature?.signedAttributes, !extra.includes('-noattr'));
        t.equal(
          got.signature?.canonicalised,
          false,
          `${label}: exact bytes verify although openssl writes LF-only lines`,
        );
        const expected = createHash(md).update(entity).digest();
        t.same(got.mic.digest, expected, `${label}: MIC = digest of the signed entity`);
      }
    }
  },
);

t.test('openssl encrypts (every cipher it has, PKCS#1, OAEP, OAEP-SHA256, RC2), pier decrypts', async (t) => {
  openssl('cms -sign -binary -in entity.mime -signer alice.crt -inkey alice.key -md sha256 -out signed.eml');
  const ciphers: [string, string, string[]][] = [
    ['-des3', '3des', []],
    ['-aes128', 'aes128-cbc', []],
    ['-aes192', 'aes192-cbc', []],
    ['-aes256', 'aes256-cbc', []],
    ['-aes-128-gcm', 'aes128-gcm', []],
    ['-aes-192-gcm', 'aes192-gcm', []],
    ['-aes-256-gcm', 'aes256-gcm', []],
    ['-rc2', 'rc2-cbc', ['-provider', 'legacy', '-provider', 'default']],
  ];
  const transports: [string[], string][] = [
    [[], 'rsa-pkcs1'],
    [['-keyopt', 'rsa_padding_mode:oaep'], 'rsa-oaep'],
    [['-keyopt', 'rsa_padding_mode:oaep', '-keyopt', 'rsa_oaep_md:sha256'], 'rsa-oaep'],
  ];
  const headers = { 'content-type': 'application/pkcs7-mime; smime-type=enveloped-data; name=smime.p7m' };
  for (const [flag, name, providers] of ciphers) {
    for (const [keyopts, transport] of transports) {
      openssl(
        `cms -encrypt -binary -in signed.eml ${flag} -outform DER -out openssl-encrypted.der -recip bob.crt`,
        ...keyopts,
        ...providers,
      );
      const got = unpackIncoming(fixtures.read('openssl-encrypted.der'), headers, {
        ...receive,
        requireSigned: true,
        requireEncrypted: true,
      });
      const label = `${flag} ${keyopts.join(' ') || 'pkcs1'}`;
      t.same(got.payload, payload, label);
      t.equal(got.encryption?.algorithm, name);
      t.equal(got.encryption?.keyTransport, transport);
      t.same(got.mic.digest, sha256(entity), `${label}: MIC of the signed entity`);
    }
  }
  // Unsigned: the MIC covers the decrypted entity, headers included (RFC 4130 §7.3.1).
  openssl('cms -encrypt -binary -in entity.mime -aes256 -outform DER -out unsigned.der -recip bob.crt');
  const unsigned = unpackIncoming(fixtures.read('unsigned.der'), headers, receive);
  t.same(unsigned.mic.digest, sha256(entity));
});

t.test('a CompressedData built with openssl asn1parse -genconf from node:zlib output', async (t) => {
  const zlib = deflateSync(entity).toString('hex').toUpperCase();
  write(
    'compressed.cnf',
    [
      'asn1 = SEQUENCE:contentInfo',
      '[contentInfo]',
      'type = OID:1.2.840.113549.1.9.16.1.9',
      'content = EXPLICIT:0,SEQUENCE:compressedData',
      '[compressedData]',
      'version = INTEGER:0',
      'algorithm = SEQUENCE:zlib',
      'encap = SEQUENCE:encap',
      '[zlib]',
      'oid = OID:1.2.840.113549.1.9.16.3.8',
      '[encap]',
      'type = OID:1.2.840.113549.1.7.1',
      `content = EXPLICIT:0,FORMAT:HEX,OCTETSTRING:${zlib}`,
      '',
    ].join('\n'),
  );
  openssl('asn1parse -genconf compressed.cnf -noout -out openssl-compressed.der');
  const got = unpackIncoming(
    fixtures.read('openssl-compressed.der'),
    { 'content-type': 'application/pkcs7-mime; smime-type=compressed-data; name=smime.p7z' },
    receive,
  );
  t.same(got.payload, payload);
  t.same(got.layers, ['compressed']);
  t.equal(got.compression, 'unsigned');
});

t.test('an MDN signed by openssl verifies', async (t) => {
  const report = buildReport({
    reportingUa: 'openssl',
    originalRecipient: 'BOB',
    finalRecipient: 'BOB',
    originalMessageId: '<1@alice.example>',
    disposition: processed,
    mic: { algorithm: 'sha-256', digest: sha256(entity) },
    text: 'Received.',
  });
  write('report.mime', joinChunks(buildEntity([['Content-Type', report.contentType]], report.body)));
  openssl('cms -sign -binary -in report.mime -signer bob.crt -inkey bob.key -md sha256 -out mdn.eml');
  const { headers, body } = asHttp(fixtures.read('mdn.eml'));
  const mdn = parseMdn(body, headers, { verificationCerts: [bob.certificate], requireSigned: true });
  t.equal(mdn.signature?.verified, true);
  t.equal(mdn.originalMessageId, '<1@alice.example>');
  t.same(mdn.mic?.digest, sha256(entity));
  t.throws(() => parseMdn(body, headers, { verificationCerts: [alice.certificate] }), { name: 'MdnError' });
});
