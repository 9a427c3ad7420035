// Covers reading uploads beyond the API's cases: the shapes of text tools write (openssl pkcs12 output, CRLF, UTF-16, bare base64) and notes for skipped blocks.
import t from 'tap';
import { makeStandardFixtures } from '../../../test/helpers/certificates.js';
import { inspectUpload, UploadProblem } from './inspect.js';

const f = makeStandardFixtures();
t.teardown(() => f.remove());

const rsaSha = f
  .openssl('x509 -in rsa.crt -noout -fingerprint -sha256')
  .trim()
  .split('=')[1]!
  .replace(/:/g, '')
  .toLowerCase();

t.test('openssl pkcs12 -nodes output with its Bag Attributes lines', async (t) => {
  const text = f.openssl('pkcs12 -in nopass.p12 -nodes -passin pass:');
  t.match(text, /Bag Attributes/);
  const found = inspectUpload({ certificate: Buffer.from(text) });
  t.same(
    found.certificates.map((c) => [c.info.sha256, c.keyIndex]),
    [[rsaSha, 0]],
  );
  t.same(found.notes, []);
});

t.test('CRLF line endings, UTF-16 with a byte order mark, and base64 without armour', async (t) => {
  const pem = f.read('rsa.crt').toString();
  const crlf = Buffer.from(pem.replace(/\n/g, '\r\n'));
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(pem, 'utf16le')]);
  const bare = Buffer.from(
    f
      .read('rsa.der')
      .toString('base64')
      .replace(/(.{76})/g, '$1\n'),
  );
  for (const [name, bytes] of [
    ['CRLF', crlf],
    ['UTF-16', utf16],
    ['bare base64', bare],
  ] as const) {
    t.same(
      inspectUpload({ certificate: bytes }).certificates.map((c) => c.info.sha256),
      [rsaSha],
      name,
    );
  }
});

t.test('skipped blocks are noted, good ones kept', async (t) => {
  f.openssl('ecparam -name prime256v1 -genkey -out ec-with-params.pem');
  const damaged = '-----BEGIN CERTIFICATE-----\nTUlJQm9ndXM=\n-----END CERTIFICATE-----\n';
  const publicKey = f.openssl('pkey -in rsa.key -pubout');
  const trusted = f.openssl('x509 -in ec.crt -trustout');
  const rsa = f.read('rsa.crt').toString();
  const text = [rsa, damaged, publicKey, f.read('ec-with-params.pem').toString(), trusted, rsa].join('');
  const found = inspectUpload({ certificate: Buffer.from(text) });
  t.equal(found.certificates.length, 2, 'the RSA certificate (twice) and the trusted EC certificate');
  t.equal(found.keys.length, 1);
  t.same(found.keys[0]!.certificateIndexes, [], 'the EC key in the file is not the certificate’s');
  const lineOf = (begin: string, from = 0) => text.split('\n').indexOf(begin, from) + 1;
  t.same(found.notes, [
    `Skipped the public key at line ${lineOf('-----BEGIN PUBLIC KEY-----')}: a public key alone is not a certificate; ask for the certificate`,
    `Skipped the EC PARAMETERS block at line ${lineOf('-----BEGIN EC PARAMETERS-----')}: it only names the curve of a key`,
    `Skipped the certificate at line ${lineOf('-----BEGIN CERTIFICATE-----', 2)}: The certificate is truncated: the file ends before the certificate does`,
    'The certificate CN=as2.acme.example, O=Acme\\, Inc., C=DE appears 2 times; it is listed once',
    'The EC private key 0 belongs to none of the certificates found',
  ]);
});

t.test('a private_key part without a key is refused on that part', async (t) => {
  t.throws(() => inspectUpload({ certificate: f.read('rsa.crt'), privateKey: f.read('ec.crt') }), {
    constructor: UploadProblem,
    field: 'private_key',
    message: 'The private_key file holds no usable private key',
  });
});
