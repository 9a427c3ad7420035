// Covers the streamed packing of large documents (as2/stream/pack-streamed.ts) against the in-memory packOutgoing: for a 2.5 MiB document and a matrix of options (sign × encrypt, compression, transfer encoding, signed attributes, PSS, OAEP, ECDH key agreement to P-256/384/521 certificates), both give the same MIC and, where nothing random differs, the same bytes; openssl cms decrypts and verifies the streamed output, node:zlib inflates its CompressedData, and unpackIncoming reads both back to the document, byte for byte. No temporary file is left behind.
import { createPrivateKey, randomBytes, X509Certificate } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import t from 'tap';
import { parseEntity } from '../../actors/as2/mime/parse.js';
import { decodeTransferEncoding } from '../../actors/as2/mime/transfer-encoding.js';
import { packOutgoing, type PackOptions } from '../../actors/as2/pack.js';
import { packOutgoingStreamed } from '../../actors/as2/stream/pack-streamed.js';
import { fileRange, sourceBytes } from '../../actors/as2/stream/source.js';
import { TempFiles } from '../../actors/as2/stream/temp-files.js';
import { unpackIncoming } from '../../actors/as2/unpack.js';
import type { ContentEncryption } from '../../pki/algorithms/encryption-algorithms.js';
import type { MicAlgorithm } from '../../pki/algorithms/mic-algorithms.js';
import { asMessage, opensslVerifies, writeFixture } from '../helpers/smime.js';
import { makeParties, type Party } from './parties.js';

const parties = makeParties();
t.teardown(() => parties.remove());
const { alice, bob, fixtures } = parties;
const tempRoot = await mkdtemp(path.join(os.tmpdir(), 'pier-stream-pack-'));
t.teardown(() => rm(tempRoot, { recursive: true, force: true }));

// Random bytes (incompressible) and EDI lines (compressible) with bare LFs, above the 1 MiB threshold.
const document = Buffer.concat([
  randomBytes(1024 * 1024),
  Buffer.from('ISA*00*          *00*~\r\nGS*PO*ALICE*BOB~\nST*850*0001~\n'.repeat(30_000)),
  randomBytes(1000),
]);
const documentFile = path.join(tempRoot, 'document.edi');
await writeFile(documentFile, document);
// bob's EC encryption certificates: pier agrees a key with each (ECDH, RFC 5753).
const ecBob: Record<string, Party> = {};
for (const curve of ['P-256', 'P-384', 'P-521']) {
  const name = `bob-${curve}`;
  fixtures.openssl(
    `req -x509 -newkey ec -pkeyopt ec_paramgen_curve:${curve} -nodes -keyout ${name}.key -out ${name}.crt -days 30 -subj`,
    `/O=bob/CN=${name}.as2.example`,
  );
  ecBob[curve] = {
    name,
    certificate: new X509Certificate(fixtures.read(`${name}.crt`)),
    privateKey: createPrivateKey(fixtures.read(`${name}.key`)),
    certFile: `${name}.crt`,
    keyFile: `${name}.key`,
  };
}
const receive = {
  decryptionKeys: [bob, ...Object.values(ecBob)],
  verificationCerts: [alice.certificate],
};
const signingTime = new Date('2026-11-21T08:00:00Z');

interface Case {
  label: string;
  options: PackOptions;
}

const signs: (MicAlgorithm | null)[] = [null, 'sha-256', 'sha-1'];
const encrypts: (ContentEncryption | null)[] = [null, 'aes256-cbc', 'aes128-gcm', '3des'];
const compressions = ['off', 'before-sign', 'after-sign'] as const;
const cases: Case[] = [];
let n = 0;
for (const sign of signs) {
  for (const encrypt of encrypts) {
    for (const compress of compressions) {
      const transferEncoding = n % 2 === 0 ? 'binary' : 'base64';
      n++;
      cases.push({
        label: `sign ${sign ?? 'none'}, encrypt ${encrypt ?? 'none'}, compress ${compress}, ${transferEncoding}`,
        options: {
          filename: 'po 1.edi',
          compress,
          transferEncoding,
          sign: sign && {
            algorithm: sign,
            certificate: alice.certificate,
            privateKey: alice.privateKey,
            signingTime,
          },
          encrypt: encrypt && { algorithm: encrypt, certificate: bob.certificate },
        },
      });
    }
  }
}
const signBy = {
  algorithm: 'sha-256' as const,
  certificate: alice.certificate,
  privateKey: alice.privateKey,
};
const encryptFor = { algorithm: 'aes128-cbc' as const, certificate: bob.certificate };
cases.push(
  {
    label: 'no signed attributes, compressed before signing',
    options: { compress: 'before-sign', sign: { ...signBy, signedAttributes: false } },
  },
  {
    label: 'no CMSAlgorithmProtection, filename as a token, micalg sha256',
    options: {
      filename: 'po.edi',
      filenameQuoting: 'token',
      micSpelling: 'rfc3851',
      sign: { ...signBy, algorithmProtection: false, signingTime },
    },
  },
  {
    label: 'RSASSA-PSS without signed attributes, encrypted',
    options: { sign: { ...signBy, scheme: 'rsa-pss', signedAttributes: false }, encrypt: encryptFor },
  },
  {
    label: 'RSASSA-PSS with signed attributes, compressed after signing',
    options: { compress: 'after-sign', sign: { ...signBy, scheme: 'rsa-pss' } },
  },
  {
    label: 'OAEP key transport, encrypted only, base64',
    options: { transferEncoding: 'base64', encrypt: { ...encryptFor, keyTransport: 'rsa-oaep' } },
  },
  {
    label: 'OAEP with SHA-256, signed and encrypted with AES-256-GCM',
    options: {
      sign: signBy,
      encrypt: { algorithm: 'aes256-gcm', certificate: bob.certificate, keyTransport: 'rsa-oaep-sha256' },
    },
  },
  { label: 'unsigned MIC with SHA-512, nothing else', options: { micAlgorithm: 'sha-512' } },
  {
    label: 'ECDH to a P-256 certificate, signed, AES-128-CBC',
    options: { sign: signBy, encrypt: { algorithm: 'aes128-cbc', certificate: ecBob['P-256']!.certificate } },
  },
  {
    label: 'ECDH to a P-384 certificate, AES-256-GCM, compressed before signing',
    options: {
      compress: 'before-sign',
      sign: signBy,
      encrypt: { algorithm: 'aes256-gcm', certificate: ecBob['P-384']!.certificate },
    },
  },
  {
    label: 'ECDH to a P-521 certificate, 3DES, encrypted only',
    options: { encrypt: { algorithm: '3des', certificate: ecBob['P-521']!.certificate } },
  },
);

/** The recipient whose key opens a message encrypted for `certificate`, by its files. */
function recipientOf(options: PackOptions): Party {
  const certificate = options.encrypt?.certificate;
  return Object.values(ecBob).find((p) => p.certificate === certificate) ?? bob;
}

/** The body with the multipart boundary (random per message) replaced, to compare two messages. */
function withoutBoundary(body: Buffer, contentType: string): string {
  const boundary = /boundary="([^"]+)"/.exec(contentType)?.[1];
  const text = body.toString('latin1');
  return boundary ? text.split(boundary).join('BOUNDARY') : text;
}

/** Every layer of a message taken off by openssl (and node:zlib for CompressedData); the document. */
function openedByOpenssl(headers: Record<string, string>, body: Buffer, recipient: Party = bob): Buffer {
  let message = asMessage(headers, body);
  for (;;) {
    const entity = parseEntity(message);
    const type = entity.headers.get('content-type') ?? '';
    if (/enveloped-data/i.test(type)) {
      writeFixture(fixtures, 'streamed.der', decodeTransferEncoding(entity.body, 'binary'));
      fixtures.openssl(
        `cms -decrypt -binary -inform DER -in streamed.der -inkey ${recipient.keyFile} -recip ${recipient.certFile} -out decrypted.eml`,
      );
      message = fixtures.read('decrypted.eml');
    } else if (/multipart\/signed/.test(type)) {
      message = opensslVerifies(fixtures, message, type, 'alice.crt');
    } else if (/compressed-data/.test(type)) {
      writeFixture(fixtures, 'compressed.der', entity.body);
      const dump = fixtures.openssl('asn1parse -inform DER -in compressed.der -dlimit 16');
      if (!/:zlib compression/.test(dump)) throw new Error('not zlib CompressedData');
      const octets = [
        ...dump.matchAll(/^\s*(\d+):d=\d+\s+hl=(\d+)\s+l=\s*(\d+) prim: OCTET STRING/gm),
      ].pop()!;
      const start = Number(octets[1]) + Number(octets[2]);
      message = inflateSync(entity.body.subarray(start, start + Number(octets[3])));
    } else {
      return decodeTransferEncoding(entity.body, entity.headers.get('content-transfer-encoding') ?? 'binary');
    }
  }
}

for (const c of cases) {
  t.test(c.label, async (t) => {
    const inMemory = packOutgoing(document, c.options);
    const temp = await TempFiles.create(tempRoot);
    let streamed;
    try {
      streamed = await packOutgoingStreamed(fileRange(documentFile, document.length), c.options, temp);
      const body = await sourceBytes(streamed.body);
      t.equal(body.length, streamed.body.length, 'the length announced is the length read');
      t.equal(streamed.mic.algorithm, inMemory.mic.algorithm, 'MIC algorithm');
      t.same(streamed.mic.digest, inMemory.mic.digest, 'the same MIC as in memory');
      t.same(Object.keys(streamed.headers), Object.keys(inMemory.headers), 'the same headers');
      const random =
        !!c.options.encrypt || c.options.sign?.scheme === 'rsa-pss' || c.options.compress === 'after-sign';
      if (!random) {
        t.equal(
          withoutBoundary(body, streamed.contentType),
          withoutBoundary(inMemory.body, inMemory.contentType),
          'the same bytes as in memory',
        );
      }
      const recipient = recipientOf(c.options);
      const opened = openedByOpenssl(streamed.headers, body, recipient);
      t.ok(opened.equals(document), 'openssl (and zlib) open the streamed message to the document');
      if (recipient !== bob) {
        t.match(
          fixtures.openssl('asn1parse -inform DER -in streamed.der -dlimit 16'),
          /cont \[ 1 \][\s\S]*:id-ecPublicKey[\s\S]*:dhSinglePass-stdDH-sha(256|384|512)kdf-scheme[\s\S]*:id-aes(128|192|256)-wrap/,
          'the streamed message has a KeyAgreeRecipientInfo with an X9.63 KDF and AES key wrap',
        );
        const fromMemory = openedByOpenssl(inMemory.headers, inMemory.body, recipient);
        t.ok(fromMemory.equals(document), 'openssl opens the in-memory ECDH message to the document');
      }
      const unpacked = unpackIncoming(body, streamed.headers, {
        ...receive,
        micAlgorithm: inMemory.mic.algorithm,
      });
      t.ok(unpacked.payload.equals(document), 'unpackIncoming reads the streamed message');
      t.same(unpacked.mic.digest, inMemory.mic.digest, 'the receiver computes the same MIC');
      const fromMemory = unpackIncoming(inMemory.body, inMemory.headers, receive);
      t.ok(fromMemory.payload.equals(document), 'unpackIncoming reads the in-memory message');
    } finally {
      await temp.remove();
    }
  });
}

t.test('no temporary file is left behind', async (t) => {
  t.same(await readdir(tempRoot), ['document.edi']);
});
