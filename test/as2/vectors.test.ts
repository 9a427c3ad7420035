// Covers the captured Mendelson and OpenAS2 messages in test/fixtures/as2-line-endings: each decrypts, verifies over the exact bytes, yields its document and the README's SHA-256 MIC.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { decryptEnveloped } from '../../pki/cms/enveloped-data.js';
import { certificatesInSignature } from '../../pki/cms/signed-data.js';
import { unpackIncoming } from '../../actors/as2/unpack.js';

// Public captures kept in the repository (their licence and origin: SOURCE.md beside them).
const vectors = path.resolve(import.meta.dirname, '../fixtures/as2-line-endings');
const read = (name: string) => readFileSync(path.join(vectors, name));

const serverKey = createPrivateKey(read('certificates/server.key'));
const serverCert = new X509Certificate(read('certificates/server.crt'));
const clientCert = new X509Certificate(read('certificates/client.crt'));
const decryptionKeys = [{ certificate: serverCert, privateKey: serverKey }];
const encryptedHeaders = {
  'content-type': 'application/pkcs7-mime; smime-type=enveloped-data; name=smime.p7m',
};

// The README's table: [case, OpenAS2 MIC, Mendelson MIC].
const table: [string, string, string][] = [
  [
    'base64_newline',
    'BPd3v8Q+vdx13PEe/K0egVMiJfi6DBSgmyo4mKgM5bU=',
    'WA7oyN5wqF15kPR65fIn+V4yzvsDnpFc025+mSgt0hI=',
  ],
  [
    'base64_crlf',
    'CFv2BSzsV6zLv44PD2UBeASAjg5bL1L3DHZnJrsRUAI=',
    '4ZkgJXocVDxYRtaitolX29rY9yAWLfmht8NGLCWQtnc=',
  ],
  [
    'binary_initial_double_newline',
    'O0pF3FMeakUSGbKNmD0rushtjWNfLO29eDvdOiwKoqs=',
    '1a+TLiA2JUtdqd+CVAGbZnRUhSltx5I2nuK3ZaPswB4=',
  ],
  [
    'binary_newlines',
    'RX+gWZEQOkou02/9eOPCbtUNYxTJXZbGXtslssIezaY=',
    'eYfOn1VkdCfSQf7trg6Jy8qj7CqMACXtLFY4XSfXyFs=',
  ],
  [
    'binary_trailing_double_newline',
    'lGv3z+A33GjNFox7Yzkn+PTNNPbZ19JRhMOvXgp2zSk=',
    'WB54rweCaTk5PkPJApqhks/8wYrN2FhFYJwdwHr4wcY=',
  ],
  [
    'binary_initial_double_crlf',
    'dICWO5M3qSfVmyvDHXnVyKGLxkuTlIb4DInirNKBRT0=',
    '46chrZzSsA18bQCAFG9I+UGndcj7QPO5FH6ESccX79U=',
  ],
  [
    'binary_crlf_lines',
    'P2Ox0s8iJBd3TcNyYfv4IHO1LfkS32U8sdoT/axPjio=',
    'vcqn9ReBEUyJLEe1A0l8L+aVqXGaOLgKTP0us9PgLOw=',
  ],
  [
    'binary_trailing_double_crlf',
    '4FuEDJ+N581GkvjZV4BT7iFsC4JRqGC2pLP2IIuOd1c=',
    'cToHc8OeBOqEuuowBfXWYmMb0ZKTa51LfOa13aK1i6Q=',
  ],
];

// The documents the partners sent (the `echo -n` lines in the Ruby gem's tests).
const documents: Record<string, string> = {
  base64_newline: '\nencoding:binary\nline-ending:newline\n',
  base64_crlf: '\r\nencoding:binary\r\nline-ending:crlf\r\n',
  binary_initial_double_newline: '\n\nencoding:binary\nline-ending:newline\n',
  binary_newlines: "encoding:binary\nline-ending:newline\nmore text\nis good text\ndon't you think?",
  binary_trailing_double_newline:
    "encoding:binary\nline-ending:newline\nmore text\nis good text\ndon't you think?\n\n",
  binary_initial_double_crlf: '\r\n\r\nencoding:binary\r\nline-ending:crlf\r\nmore text\r\n',
  binary_crlf_lines: 'encoding:binary\r\nline-ending:crlf\r\nmore text\r\n',
  binary_trailing_double_crlf: 'encoding:binary\r\nline-ending:crlf\r\nmore text\r\n\r\n',
};

for (const [source, column] of [
  ['from_openas2', 1],
  ['from_mendelson', 2],
] as const) {
  t.test(source, async (t) => {
    for (const row of table) {
      const name = row[0];
      const expectedMic = row[column];
      const body = read(`${source}/${name}.pkcs7`);
      t.same(
        decryptEnveloped(body, decryptionKeys).content,
        read(`${source}/${name}.mime`),
        `${name}: decrypts to .mime`,
      );
      const message = unpackIncoming(body, encryptedHeaders, {
        decryptionKeys,
        verificationCerts: [clientCert],
        requireSigned: true,
        requireEncrypted: true,
        micAlgorithm: 'sha-256',
      });
      t.equal(message.mic.digest.toString('base64'), expectedMic, `${name}: the README's MIC`);
      t.equal(message.payload.toString('latin1'), documents[name], `${name}: the document`);
      t.equal(message.filename, `${name}.txt`);
      // The .txt captures are the signed entity as the Ruby gem logged it; some begin with a
      // stray CRLF that is not part of the signed bytes (the MICs above prove which bytes are).
      const txt = read(`${source}/${name}.txt`);
      const signedEntity = txt.subarray(0, 2).toString() === '\r\n' ? txt.subarray(2) : txt;
      t.same(message.signature?.signedContent, signedEntity, `${name}: signed entity equals .txt`);
      t.equal(message.signature?.canonicalised, false, `${name}: verified over the bytes as received`);
      t.equal(message.signature?.signer, clientCert);
      t.same(message.layers, ['encrypted', 'signed']);
      t.equal(message.encryption?.keyTransport, 'rsa-pkcs1');
      t.equal(message.encryption?.algorithm, source === 'from_openas2' ? '3des' : 'aes256-cbc');
      t.equal(message.signature?.digestAlgorithm, 'sha-256');
      t.equal(message.signature?.algorithmProtection, true);
    }
  });
}

t.test('hello_world_1 and hello_world_2 (SHA-1 signatures)', async (t) => {
  const options = { decryptionKeys, verificationCerts: [clientCert] };
  const second = unpackIncoming(read('hello_world_2.pkcs7'), encryptedHeaders, options);
  t.equal(second.payload.toString(), 'hello world 2\n');
  t.equal(second.filename, 'hello_world_2.txt');
  // The MIC the Ruby gem's test expects for this message.
  t.equal(second.mic.digest.toString('base64'), 'nyyjxao566rCbElBu0v+lrDjAq4=');
  t.equal(second.mic.algorithm, 'sha-1');

  // hello_world_1 was signed by Mendelson's own test key, not client.crt: refused as a stranger,
  // accepted once that certificate (carried in the signature) is trusted.
  t.throws(() => unpackIncoming(read('hello_world_1.pkcs7'), encryptedHeaders, options), {
    name: 'DispositionError',
    modifier: 'authentication-failed',
  });
  const inner = decryptEnveloped(read('hello_world_1.pkcs7'), decryptionKeys).content.toString('latin1');
  const signaturePart = /smime\.p7s"\r\nContent-Description: [^\r]*\r\n\r\n([A-Za-z0-9+/=\r\n]+)\r\n--/.exec(
    inner,
  )![1]!;
  const [mendelson] = certificatesInSignature(Buffer.from(signaturePart, 'base64'));
  t.match(mendelson!.subject, /mendelson test key 4/);
  const first = unpackIncoming(read('hello_world_1.pkcs7'), encryptedHeaders, {
    decryptionKeys,
    verificationCerts: [clientCert, mendelson!],
  });
  t.equal(first.payload.toString(), 'hello world!\n');
  t.equal(first.filename, 'hello_world.txt');
});
