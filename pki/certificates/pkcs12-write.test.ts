// Covers writing a PKCS#12 file of a key and its certificate: OpenSSL reads it with the password
// (the same certificate, the same key, the friendly name, the MAC verified) and refuses a wrong one;
// pier's own reader opens it too; an RSA and an EC key alike.
import { execFileSync, spawnSync } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { makeKeyPair, selfSignedCertificate, type KeySpec } from './make-certificate.js';
import { readPkcs12 } from './pkcs12.js';
import { writePkcs12 } from './pkcs12-write.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pier-p12-write-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const specs: KeySpec[] = [
  { algorithm: 'rsa', bits: 2048 },
  { algorithm: 'ec', curve: 'P-256' },
];

for (const spec of specs) {
  t.test(`${spec.algorithm}: openssl and pier read what was written`, async (t) => {
    const key = await makeKeyPair(spec);
    const certificate = selfSignedCertificate({
      key,
      subject: { common_name: 'as2.acme.example' },
      notBefore: new Date(),
      validDays: 30,
    });
    const password = 'correct horse battery staple ü';
    const file = path.join(dir, `${spec.algorithm}.p12`);
    writeFileSync(file, writePkcs12({ key, certificate, friendlyName: 'acme signing', password }));

    const out = execFileSync('openssl', ['pkcs12', '-in', file, '-passin', 'stdin', '-nodes'], {
      input: `${password}\n`,
    }).toString();
    t.match(out, /friendlyName: acme signing/);
    const certPem = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(out)![0];
    t.same(Buffer.from(new X509Certificate(certPem).raw), certificate, 'the same certificate');
    const keyPem = /-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----/.exec(out)![0];
    t.same(
      createPrivateKey(keyPem).export({ format: 'der', type: 'pkcs8' }),
      key.export({ format: 'der', type: 'pkcs8' }),
      'the same key',
    );

    const wrong = spawnSync('openssl', ['pkcs12', '-in', file, '-passin', 'pass:wrong', '-nodes'], {
      encoding: 'utf8',
    });
    t.not(wrong.status, 0, 'openssl refuses a wrong password');
    t.match(wrong.stderr, /mac verify failure|invalid password/i);

    const read = readPkcs12(readFileSync(file), password);
    t.same(read.certificates[0]!.der, certificate);
    t.same(read.keys[0]!.key.pkcs8, key.export({ format: 'der', type: 'pkcs8' }));
  });
}

t.test('no password is refused: a key never leaves in clear', async (t) => {
  const key = await makeKeyPair({ algorithm: 'ec', curve: 'P-256' });
  const certificate = selfSignedCertificate({
    key,
    subject: { common_name: 'x' },
    notBefore: new Date(),
    validDays: 1,
  });
  t.throws(() => writePkcs12({ key, certificate, friendlyName: 'x', password: '' }), RangeError);
});
