// Covers making key pairs, self-signed certificates and certificate signing requests: each key type is checked by openssl (signature verifies, openssl re-encodes the same bytes, subject and extensions as written) and by pier's own certificate reader.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import t from 'tap';
import { certificateInfo, toPem } from './certificate-info.js';
import { certificateRequest, makeKeyPair, selfSignedCertificate, type KeySpec } from './make-certificate.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pier-make-cert-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

function openssl(args: string[], input?: Buffer): Buffer {
  return execFileSync('openssl', args, { cwd: dir, input, stdio: ['pipe', 'pipe', 'pipe'] });
}

const subject = {
  common_name: 'as2.müller.example',
  organization: 'Müller & Söhne GmbH',
  organizational_unit: 'EDI',
  country: 'DE',
  email: 'edi@mueller.example',
};

const specs: [KeySpec, string, string][] = [
  [{ algorithm: 'rsa', bits: 2048 }, 'sha256WithRSAEncryption', 'Public-Key: (2048 bit)'],
  [{ algorithm: 'rsa', bits: 3072 }, 'sha256WithRSAEncryption', 'Public-Key: (3072 bit)'],
  [{ algorithm: 'rsa', bits: 4096 }, 'sha256WithRSAEncryption', 'Public-Key: (4096 bit)'],
  [{ algorithm: 'ec', curve: 'P-256' }, 'ecdsa-with-SHA256', 'NIST CURVE: P-256'],
  [{ algorithm: 'ec', curve: 'P-384' }, 'ecdsa-with-SHA384', 'NIST CURVE: P-384'],
];

for (const [spec, signatureName, keyLine] of specs) {
  const label = spec.algorithm === 'rsa' ? `RSA ${spec.bits}` : `EC ${spec.curve}`;
  const file = label.replace(/\W+/g, '-');

  t.test(`${label}: a self-signed certificate openssl verifies and re-encodes byte for byte`, async (t) => {
    const key = await makeKeyPair(spec);
    const notBefore = new Date('2026-11-23T10:00:00.750Z');
    const der = selfSignedCertificate({ key, subject, notBefore, validDays: 730 });
    writeFileSync(path.join(dir, `${file}.crt`), toPem(der));
    const verified = openssl(['verify', '-CAfile', `${file}.crt`, '-check_ss_sig', `${file}.crt`]);
    t.equal(verified.toString().trim(), `${file}.crt: OK`);
    t.same(openssl(['x509', '-in', `${file}.crt`, '-outform', 'DER']), der, 'canonical DER');
    const text = openssl(['x509', '-in', `${file}.crt`, '-noout', '-text', '-nameopt', 'utf8']).toString();
    t.match(text, `Signature Algorithm: ${signatureName}`);
    t.match(text, keyLine);
    t.match(text, 'CA:FALSE');
    t.match(
      text,
      spec.algorithm === 'rsa' ? 'Digital Signature, Key Encipherment' : 'Digital Signature, Key Agreement',
    );
    t.match(text, 'E-mail Protection, TLS Web Client Authentication');
    t.match(text, 'Not Before: Nov 23 10:00:00 2026 GMT');
    t.match(text, 'Not After : Nov 22 10:00:00 2028 GMT');
    const info = certificateInfo(der);
    t.equal(
      info.subject,
      'emailAddress=edi@mueller.example, CN=as2.müller.example, OU=EDI, O=Müller & Söhne GmbH, C=DE',
    );
    t.equal(info.common_name, 'as2.müller.example');
    t.equal(info.self_signed, true);
    t.ok(new X509Certificate(der).checkPrivateKey(key), 'the key belongs to the certificate');
  });

  t.test(`${label}: a certificate signing request openssl verifies`, async (t) => {
    const key = await makeKeyPair(spec);
    const der = certificateRequest({ key, subject: { common_name: 'pier-test', country: 'NL' } });
    writeFileSync(path.join(dir, `${file}.csr`), toPem(der, 'CERTIFICATE REQUEST'));
    const text = openssl(['req', '-in', `${file}.csr`, '-verify', '-noout', '-text']).toString();
    t.match(text, 'Subject: C = NL, CN = pier-test');
    t.match(text, `Signature Algorithm: ${signatureName}`);
    t.match(text, 'Requested Extensions:');
    t.same(openssl(['req', '-in', `${file}.csr`, '-outform', 'DER']), der, 'canonical DER');
    // A CA signs it, and the certificate it issues belongs to the key.
    openssl([
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      `${file}-ca.key`,
      '-out',
      `${file}-ca.crt`,
      '-subj',
      '/CN=Test CA',
      '-days',
      '2',
    ]);
    openssl([
      'x509',
      '-req',
      '-in',
      `${file}.csr`,
      '-CA',
      `${file}-ca.crt`,
      '-CAkey',
      `${file}-ca.key`,
      '-set_serial',
      '7',
      '-days',
      '2',
      '-out',
      `${file}-issued.crt`,
    ]);
    const issued = new X509Certificate(openssl(['x509', '-in', `${file}-issued.crt`, '-outform', 'DER']));
    t.ok(issued.checkPrivateKey(key));
  });
}

t.test('only the subject fields given are written, in the order openssl -subj writes them', async (t) => {
  const key = await makeKeyPair({ algorithm: 'ec', curve: 'P-256' });
  const der = selfSignedCertificate({
    key,
    subject: { common_name: 'only-cn' },
    notBefore: new Date(),
    validDays: 1,
  });
  writeFileSync(path.join(dir, 'only.crt'), toPem(der));
  t.equal(
    openssl(['x509', '-in', 'only.crt', '-noout', '-subject']).toString().trim(),
    'subject=CN = only-cn',
  );
  const full = selfSignedCertificate({ key, subject, notBefore: new Date(), validDays: 1 });
  writeFileSync(path.join(dir, 'full.crt'), toPem(full));
  t.equal(
    openssl(['x509', '-in', 'full.crt', '-noout', '-subject', '-nameopt', 'utf8']).toString().trim(),
    'subject=C=DE, O=Müller & Söhne GmbH, OU=EDI, CN=as2.müller.example, emailAddress=edi@mueller.example',
  );
});
