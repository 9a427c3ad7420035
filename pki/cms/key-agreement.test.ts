// Covers the parts of ECDH EnvelopedData (RFC 5753) that the openssl round trips in test/as2/ do not show: the EnvelopedData version RFC 5652 §6.1 asks for with a key agreement recipient (2) and without one (0, and always 0 for AuthEnvelopedData), a key wrap pier does not read refused with its OID named, and a message for a P-256 key refused as decryption-failed by a P-384 key.
import { execFileSync } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { readBer, readSmallInteger } from '../asn1/reader.js';
import { toBuffer, oid } from '../asn1/writer.js';
import { oids } from '../oids.js';
import type { CmsError } from './cms-error.js';
import { decryptEnveloped, encryptEnveloped } from './enveloped-data.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pier-key-agreement-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** A self-signed certificate and its key, made by openssl. */
function party(name: string, keyArgs: string[]) {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      ...keyArgs,
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.crt`,
      '-subj',
      `/CN=${name}`,
    ],
    { cwd: dir, stdio: 'ignore' },
  );
  return {
    certificate: new X509Certificate(readFileSync(path.join(dir, `${name}.crt`))),
    privateKey: createPrivateKey(readFileSync(path.join(dir, `${name}.key`))),
  };
}
const ec256 = party('ec256', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256']);
const ec384 = party('ec384', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384']);
const rsa = party('rsa', ['-newkey', 'rsa:2048']);
const content = [Buffer.from('ISA*00*ECDH~\r\n')];

/** The version field of the (Auth)EnvelopedData inside a ContentInfo. */
const versionOf = (der: Buffer) =>
  readSmallInteger(readBer(der).child(1, '[0]').child(0, 'body').child(0, 'version'));

t.test('EnvelopedData is version 2 with a key agreement recipient, 0 otherwise', async (t) => {
  t.equal(
    versionOf(encryptEnveloped(content, { algorithm: 'aes128-cbc', certificate: ec256.certificate })),
    2,
  );
  t.equal(versionOf(encryptEnveloped(content, { algorithm: 'aes128-cbc', certificate: rsa.certificate })), 0);
  t.equal(
    versionOf(encryptEnveloped(content, { algorithm: 'aes128-gcm', certificate: ec256.certificate })),
    0,
    'AuthEnvelopedData is always version 0 (RFC 5083 §2.1)',
  );
});

t.test('a key wrap pier does not read is refused with its OID named', async (t) => {
  const der = encryptEnveloped(content, { algorithm: 'aes128-cbc', certificate: ec256.certificate });
  // id-aes128-wrap (…4.1.5) becomes id-aes128-CCM (…4.1.7): same length, a wrap pier does not know.
  const wrap = toBuffer(oid(oids.aes128Wrap));
  const at = der.indexOf(wrap);
  t.ok(at > 0, 'the message names AES-128 key wrap');
  der[at + wrap.length - 1] = 7;
  const error = t.throws(() => decryptEnveloped(der, [ec256])) as CmsError;
  t.equal(error.failure, 'decryption-failed');
  t.match(
    error.message,
    'cannot decrypt: the message is encrypted for the certificate with a key agreement recipient pier cannot use (unsupported key wrap 2.16.840.1.101.3.4.1.7)',
  );
});

t.test('a message for a P-256 key does not decrypt with a P-384 key', async (t) => {
  const der = encryptEnveloped(content, { algorithm: 'aes256-cbc', certificate: ec256.certificate });
  t.same(decryptEnveloped(der, [ec384, ec256]).content, content[0], 'the named key decrypts');
  const error = t.throws(() => decryptEnveloped(der, [ec384, rsa])) as CmsError;
  t.equal(error.failure, 'decryption-failed');
  t.match(error.message, `encrypted for the certificate with serial ${ec256.certificate.serialNumber}`);
});
