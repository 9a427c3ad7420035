// Covers reading uploads beyond the API's cases: the shapes of text tools write (openssl pkcs12 output, CRLF, UTF-16, bare base64) and notes for skipped blocks.
import t from 'tap';
import { makeStandardFixtures } from '../../test/helpers/certificates.js';
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

t.test('certificates inside a streamed (BER, indefinite length) signed PKCS#7 message', async (t) => {
  f.openssl(
    'cms -sign -in bundle.pem -signer rsa.crt -inkey rsa.key -certfile ec.crt -outform DER -stream -out signed.p7s',
  );
  const signed = f.read('signed.p7s');
  t.equal(signed[1], 0x80, 'the file uses an indefinite length');
  const found = inspectUpload({ certificate: signed });
  t.equal(found.certificates.length, 2);
  t.ok(found.certificates.some((c) => c.info.sha256 === rsaSha));
});

t.test('PEM cut short: the block without an END line is noted; huge damaged text stays quick', async (t) => {
  const pem = f.read('rsa.crt').toString();
  const found = inspectUpload({ certificate: Buffer.from(pem + pem.slice(0, 300)) });
  t.equal(found.certificates.length, 1);
  t.same(found.notes, [
    'Skipped the CERTIFICATE block at line 24: it has no END line (the text is cut short)',
  ]);
  const junk = `-----BEGIN CERTIFICATE-----\n${'A'.repeat(20 * 1024)}\n`.repeat(990);
  const started = Date.now();
  t.throws(() => inspectUpload({ certificate: Buffer.from(junk) }), {
    constructor: UploadProblem,
    message:
      /^The file holds no certificate or private key: Skipped the CERTIFICATE block at line 1: .*; and 985 more$/,
  });
  t.ok(Date.now() - started < 3000, `20 MiB of unterminated blocks read in ${Date.now() - started} ms`);
});

t.test('damaged and truncated files are refused as such, never with another error', async (t) => {
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  let refused = 0;
  for (const name of [
    'modern.p12',
    'legacy.p12',
    'chain-der.p7b',
    'rsa.der',
    'rsa-pkcs8.der',
    'rsa-enc.der',
    'ec-sec1.der',
  ]) {
    const original = f.read(name);
    for (let i = 0; i < 60; i++) {
      const bytes = Buffer.from(original);
      let input = bytes;
      if (i % 2 === 0) input = bytes.subarray(0, random(bytes.length));
      else for (let k = 0; k < 1 + random(4); k++) bytes[random(bytes.length)] = random(256);
      try {
        inspectUpload({ certificate: input, password: 'Secret-pass 1' });
      } catch (error) {
        if (!(error instanceof UploadProblem)) {
          t.fail(`${name} #${i}: ${(error as Error).name}: ${(error as Error).message}`);
          continue;
        }
        refused++;
      }
    }
  }
  t.ok(refused > 200, `${refused} of 420 damaged files refused as upload problems, the rest read`);
});

t.test('control characters in certificate names are made visible, never stored raw', async (t) => {
  f.openssl(
    'req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ctl.key -out ctl.crt -utf8 -subj',
    '/CN=evil\u0001name',
  );
  const [found] = inspectUpload({ certificate: f.read('ctl.crt') }).certificates;
  t.equal(found!.info.common_name, 'evil\\01name');
  t.equal(found!.info.subject, 'CN=evil\\01name');
});
