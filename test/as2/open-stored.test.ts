// Covers large messages opened from their stored `received` stage (the body decrypted as it is read, as2/stream/) against the same message opened in memory: for messages built by `openssl cms` (DER and -stream BER, AES-CBC, AES-GCM, 3DES, RSA-OAEP, ECDH key agreement to P-256/384/521 certificates with each KDF, signed then encrypted, signed only, LF-only signed, compressed) both paths give the same result, receipt MIC and `unpacked` bytes, and the refusals (wrong key, tampered ciphertext or signature, truncated body, RC2, corrupt or oversized compressed content) are the same too; an innermost compressed document goes into the store without being held in memory; a document unpacked in memory comes back with its first 64 KiB in a buffer of their own, from which an EDI interchange's envelope reads as from the stored stage.
import { createHash, createPrivateKey, randomBytes, randomUUID, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import t, { type Test } from 'tap';
import { openMessage, type OpenResult, type OpenTask } from '../../actors/as2-receiver/open-message.js';
import { unpackStored } from '../../actors/as2-receiver/open-stored.js';
import { parseMdn } from '../../actors/as2/index.js';
import {
  algorithmIdentifier,
  explicit,
  integer,
  octetString,
  oid,
  sequence,
  toBuffer,
} from '../../pki/asn1/writer.js';
import { decryptEnveloped } from '../../pki/cms/enveloped-data.js';
import { decryptEnvelopedStream } from '../../actors/as2/stream/open-enveloped.js';
import { NotStreamable } from '../../actors/as2/stream/read-enveloped.js';
import { oids } from '../../pki/oids.js';
import type { As2InboundContext } from '../../protocol/as2-protocol.js';
import { LocalPayloadStore } from '../../storage/payloads/local-store.js';
import { asHttp, signedPart, writeFixture } from '../helpers/smime.js';
import { makeParties } from './parties.js';
import { envelopeOf } from '../../actors/shared/edi-envelope.js';
import { maxHeadBytes } from '../../edi/envelope-reader.js';
import { edifactInterchange } from '../helpers/edi.js';

const parties = makeParties();
t.teardown(() => parties.remove());
const { fixtures, alice, bob } = parties;
const openssl = fixtures.openssl;
const storeDir = mkdtempSync(path.join(os.tmpdir(), 'pier-open-stored-'));
t.teardown(() => rmSync(storeDir, { recursive: true, force: true }));
const store = new LocalPayloadStore(storeDir);

// bob also decrypts with EC keys (ECDH, RFC 5753); mallory's P-256 key is nobody's.
for (const [name, curve] of [
  ['bob256', 'P-256'],
  ['bob384', 'P-384'],
  ['bob521', 'P-521'],
  ['mallory256', 'P-256'],
] as const) {
  fixtures.ec(name, curve, '-addext', 'keyUsage=critical,digitalSignature,keyAgreement');
}
const pem = (name: string) => fixtures.read(name).toString();
const decryptionPair = (name: string) => ({
  certificate_pem: pem(`${name}.crt`),
  private_key_pem: pem(`${name}.key`),
});
const context: As2InboundContext = {
  found: true,
  organization: 'bob',
  partner: 'alice',
  decryption: ['bob', 'bob256', 'bob384', 'bob521'].map(decryptionPair),
  signing: { certificate_pem: pem('bob.crt'), private_key_pem: pem('bob.key') },
  verification: [pem('alice.crt')],
  partner_certificates: [pem('alice.crt')],
  require_signed: false,
  require_encrypted: false,
  require_modern: false,
  as2bis: false,
  max_message_bytes: null,
};

// Random bytes past the pool's 1 MiB, with a tail that ends the last cipher block oddly.
const document = randomBytes(1536 * 1024 + 13);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('base64');

function entityOf(body: Buffer, type = 'application/octet-stream'): Buffer {
  return Buffer.concat([
    Buffer.from(
      `Content-Type: ${type}\r\nContent-Transfer-Encoding: binary\r\n` +
        'Content-Disposition: attachment; filename="large.bin"\r\n\r\n',
    ),
    body,
  ]);
}

/** A compressed-data entity built with node:zlib (Debian's openssl has no zlib). */
function compressedEntity(inner: Buffer): Buffer {
  const der = toBuffer(
    sequence(
      oid(oids.compressedData),
      explicit(
        0,
        sequence(
          integer(0),
          algorithmIdentifier(oids.zlibCompress),
          sequence(oid(oids.data), explicit(0, octetString(deflateSync(inner)))),
        ),
      ),
    ),
  );
  return Buffer.concat([
    Buffer.from(
      'Content-Type: application/pkcs7-mime; smime-type=compressed-data; name=smime.p7z\r\n' +
        'Content-Transfer-Encoding: binary\r\n\r\n',
    ),
    der,
  ]);
}

interface Built {
  headers: Record<string, string>;
  body: Buffer;
  /** The bytes the MIC covers: the signed entity, else the decrypted one. */
  micOver: Buffer;
}

/** openssl signs `entity` (SHA-256); `lfOnly` turns every CRLF of the result into LF. */
function sign(entity: Buffer, lfOnly = false): { message: Buffer; signed: Buffer } {
  writeFixture(fixtures, 'entity.mime', entity);
  openssl('cms -sign -binary -in entity.mime -signer alice.crt -inkey alice.key -md sha256 -out signed.eml');
  let message = fixtures.read('signed.eml');
  const signed = signedPart(message, asHttp(message).headers['Content-Type']!);
  if (lfOnly) message = Buffer.from(message.toString('latin1').replace(/\r\n/g, '\n'), 'latin1');
  return { message, signed };
}

interface EncryptOptions {
  stream?: boolean;
  oaep?: boolean;
  to?: string;
  /** openssl -keyopt values for the recipient, for example ecdh_kdf_md:sha256. */
  keyopt?: string[];
}

/** openssl encrypts `content` for bob; `stream` writes BER with indefinite lengths. */
function encrypt(content: Buffer, cipher: string, options: EncryptOptions = {}) {
  writeFixture(fixtures, 'content.mime', content);
  openssl(
    `cms -encrypt -binary -in content.mime ${cipher} -recip ${options.to ?? 'bob'}.crt -outform DER -out enc.der`,
    ...(options.stream ? ['-stream'] : []),
    ...(options.oaep ? ['-keyopt', 'rsa_padding_mode:oaep'] : []),
    ...(options.keyopt ?? []).flatMap((option) => ['-keyopt', option]),
  );
  return fixtures.read('enc.der');
}

const enveloped = { 'Content-Type': 'application/pkcs7-mime; smime-type=enveloped-data; name=smime.p7m' };

function encrypted(cipher: string, options: EncryptOptions = {}): Built {
  const entity = entityOf(document);
  return { headers: enveloped, body: encrypt(entity, cipher, options), micOver: entity };
}

function signedThenEncrypted(cipher: string, stream = false, options: EncryptOptions = {}): Built {
  const { message, signed } = sign(entityOf(document));
  return { headers: enveloped, body: encrypt(message, cipher, { ...options, stream }), micOver: signed };
}

function signedOnly(lfOnly = false, inner = entityOf(document)): Built {
  const { message, signed } = sign(inner, lfOnly);
  const http = asHttp(message);
  return { headers: http.headers, body: http.body, micOver: signed };
}

const baseTask = {
  headers: {},
  context,
  maxPayloadBytes: 256 * 1024 * 1024,
  as2From: 'ALICE',
  as2To: 'BOB',
  originalMessageId: '<large@alice.example>',
  receipt: {
    identification: 'pier test',
    options: 'signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256',
  },
} satisfies Partial<OpenTask>;

async function stage(messageId: string, name: 'unpacked' | 'received'): Promise<Buffer | null> {
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of await store.open({ messageId, stage: name })) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  } catch {
    return null;
  }
}

function receiptOf(result: OpenResult) {
  const mdn = parseMdn(result.receipt!.body, result.receipt!.headers, {
    verificationCerts: [bob.certificate],
  });
  return { disposition: mdn.fields.get('disposition'), mic: mdn.mic?.digest.toString('base64') };
}

/** Opens `built` in memory and from the store; asserts the same outcome and answers it. */
async function bothWays(t: Test, label: string, built: Built, maxPayloadBytes = baseTask.maxPayloadBytes) {
  const memoryId = randomUUID();
  const memory = await openMessage(
    {
      ...baseTask,
      maxPayloadBytes,
      headers: built.headers,
      messageId: memoryId,
      body: built.body,
      receivedBytes: built.body.length,
    },
    store,
  );
  const storedId = randomUUID();
  await store.putBytes({ messageId: storedId, stage: 'received' }, built.body);
  const stored = await openMessage(
    {
      ...baseTask,
      maxPayloadBytes,
      headers: built.headers,
      messageId: storedId,
      body: null,
      receivedBytes: built.body.length,
    },
    store,
  );
  t.same(stored.description, memory.description, `${label}: the same description`);
  t.same(stored.refusal, memory.refusal, `${label}: the same refusal`);
  t.equal(stored.outcome, memory.outcome, `${label}: the same outcome`);
  t.equal(stored.payload?.size_bytes, memory.payload?.size_bytes, `${label}: the same payload size`);
  t.equal(stored.fileName, memory.fileName, `${label}: the same file name`);
  t.same(receiptOf(stored), receiptOf(memory), `${label}: the same receipt disposition and MIC`);
  const unpacked = await stage(storedId, 'unpacked');
  t.same(unpacked, await stage(memoryId, 'unpacked'), `${label}: the same unpacked stage`);
  if (memory.payload !== null && unpacked !== null) {
    t.ok(memory.payloadHead, `${label}: from memory, the head is in hand`);
    // The store's path has it too when it unpacked the document in memory, not into the store.
    for (const [path, result] of [
      ['memory', memory],
      ['store', stored],
    ] as const) {
      const head = result.payloadHead;
      if (head === undefined) continue;
      t.same(Buffer.from(head), unpacked.subarray(0, maxHeadBytes), `${label}, ${path}: the document's head`);
      t.equal(head.buffer.byteLength, head.byteLength, `${label}, ${path}: the head has a buffer of its own`);
    }
  }
  return { stored, storedId, unpacked, memory, receipt: receiptOf(stored) };
}

async function accepted(t: Test, label: string, built: Built, payload = document) {
  const { stored, unpacked, receipt } = await bothWays(t, label, built);
  t.equal(stored.refusal, null, `${label}: processed`);
  t.equal(receipt.mic, sha256(built.micOver), `${label}: the MIC of the entity openssl signed or encrypted`);
  t.ok(unpacked?.equals(payload), `${label}: unpacked is the document byte for byte`);
  return stored;
}

t.test('accepted alike from the store and from memory', async (t) => {
  const cases: [string, () => Built][] = [
    ['DER, AES-128-CBC', () => encrypted('-aes128')],
    ['BER -stream, AES-256-CBC', () => encrypted('-aes256', { stream: true })],
    ['DER, AES-128-GCM', () => encrypted('-aes-128-gcm')],
    ['BER -stream, AES-256-GCM', () => encrypted('-aes-256-gcm', { stream: true })],
    ['DER, 3DES', () => encrypted('-des3')],
    ['BER -stream, 3DES, RSA-OAEP', () => encrypted('-des3', { stream: true, oaep: true })],
    ['signed then encrypted, DER, AES-256-CBC', () => signedThenEncrypted('-aes256')],
    ['signed then encrypted, BER -stream, AES-256-GCM', () => signedThenEncrypted('-aes-256-gcm', true)],
    ['signed only', () => signedOnly()],
  ];
  for (const [label, build] of cases) {
    const stored = await accepted(t, label, build());
    t.equal(stored.description.encrypted, !label.startsWith('signed only'), `${label}: encrypted`);
  }
});

t.test(
  'an EDI interchange: its envelope read from the head in hand is the one in the stored stage',
  async (t) => {
    const order = (n: number) => ({
      ref: `${n}`,
      type: 'ORDERS',
      body: [`BGM+220+PO-${n}+9`, `DTM+137:20261124:102`, `LIN+1++4000862141404:SRS`, `QTY+21:48`],
    });
    // About 110 KiB: its first 64 KiB hold ORDERS only, the INVRPT comes at the end.
    const messages = Array.from({ length: 1000 }, (_, i) => order(i + 1));
    messages.push({ ...order(1001), type: 'INVRPT' });
    const edi = Buffer.from(
      edifactInterchange({ sender: ['ALICE', '14'], receiver: ['BOB', '14'], ref: '77', messages }),
    );
    t.ok(edi.length > maxHeadBytes + 32 * 1024, 'the document is larger than the head');
    const built = signedOnly(false, entityOf(edi, 'application/edifact'));
    const { memory, stored, storedId } = await bothWays(t, 'EDIFACT', built);
    t.equal(stored.refusal, null, 'processed');
    const cannotOpen = async (): Promise<never> => {
      throw new Error('the stored stage is not read when the head is in hand');
    };
    const fromHead = await envelopeOf({ head: memory.payloadHead, open: cannotOpen });
    const fromStore = await envelopeOf({
      open: () => store.open({ messageId: storedId, stage: 'unpacked' }),
    });
    t.same(fromHead, fromStore, 'the same envelope either way');
    t.match(fromHead, {
      standard: 'edifact',
      sender: { id: 'ALICE', qualifier: '14' },
      receiver: { id: 'BOB', qualifier: '14' },
      interchange_control: '77',
    });
    t.same(
      fromHead?.document_types,
      ['ORDERS'],
      'the types in the first 64 KiB: the INVRPT past them is not read',
    );
  },
);

t.test(
  'ECDH key agreement (RFC 5753) from openssl: accepted alike from the store and from memory',
  async (t) => {
    const cases: [string, () => Built, string][] = [
      [
        'P-256, openssl default KDF (SHA-1), AES-128-CBC, DER',
        () => encrypted('-aes128', { to: 'bob256' }),
        'ecdh-sha1kdf',
      ],
      [
        'P-256, SHA-256 KDF, AES-256-CBC, BER -stream',
        () => encrypted('-aes256', { to: 'bob256', stream: true, keyopt: ['ecdh_kdf_md:sha256'] }),
        'ecdh-sha256kdf',
      ],
      [
        'P-384, SHA-384 KDF, AES-256-GCM, BER -stream',
        () => encrypted('-aes-256-gcm', { to: 'bob384', stream: true, keyopt: ['ecdh_kdf_md:sha384'] }),
        'ecdh-sha384kdf',
      ],
      [
        'P-521, SHA-512 KDF in cofactor mode, AES-192-CBC, DER',
        () => encrypted('-aes192', { to: 'bob521', keyopt: ['ecdh_kdf_md:sha512', 'ecdh_cofactor_mode:1'] }),
        'ecdh-cofactor-sha512kdf',
      ],
      [
        'P-384, 3DES (wrapped with RFC 3217 3DES key wrap)',
        () => encrypted('-des3', { to: 'bob384' }),
        'ecdh-sha1kdf',
      ],
      [
        'signed then encrypted to P-256, SHA-256 KDF, AES-128-GCM, BER -stream',
        () => signedThenEncrypted('-aes-128-gcm', true, { to: 'bob256', keyopt: ['ecdh_kdf_md:sha256'] }),
        'ecdh-sha256kdf',
      ],
    ];
    for (const [label, build, keyTransport] of cases) {
      const stored = await accepted(t, label, build());
      t.match(stored.description.encryption, { key_transport: keyTransport }, `${label}: ${keyTransport}`);
    }
  },
);

t.test('LF-only signed content verifies in its CRLF form on both paths', async (t) => {
  const crlfText = Buffer.from('ISA*00*LARGE~\r\nGS*PO*ALICE*BOB~\r\n'.repeat(48 * 1024));
  const inner = entityOf(crlfText, 'application/edi-x12');
  const signedLf = signedOnly(true, inner);
  // The partner signed the CRLF form and sent LF: the MIC is over the CRLF form.
  const stored = await accepted(t, 'LF-only signed', signedLf, crlfText);
  t.equal(
    (stored.description.signature as { canonicalised?: boolean } | undefined)?.canonicalised ?? true,
    true,
  );
  const { message } = sign(inner, true);
  const built: Built = {
    headers: enveloped,
    body: encrypt(message, '-aes256', { stream: true }),
    micOver: signedLf.micOver,
  };
  await accepted(t, 'LF-only signed, then encrypted (-stream)', built, crlfText);
});

t.test('a binary document ending in a CR byte, signed by openssl (LF-framed multipart)', async (t) => {
  // openssl frames multipart/signed with bare LFs: the CR before the delimiter's LF is the document's.
  const endsInCr = Buffer.concat([document, Buffer.from([0x0d])]);
  const { message, signed } = sign(entityOf(endsInCr));
  await accepted(
    t,
    'ends in CR',
    { headers: enveloped, body: encrypt(message, '-aes256'), micOver: signed },
    endsInCr,
  );
});

t.test('compressed (node:zlib) under a signature and inside encryption', async (t) => {
  const compressed = compressedEntity(entityOf(document));
  await accepted(t, 'compressed, encrypted', {
    headers: enveloped,
    body: encrypt(compressed, '-aes256'),
    micOver: compressed,
  });
  const { message, signed } = sign(compressed);
  await accepted(t, 'compressed, signed, encrypted (-stream)', {
    headers: enveloped,
    body: encrypt(message, '-aes-128-gcm', { stream: true }),
    micOver: signed,
  });
});

async function refused(
  t: Test,
  label: string,
  built: Built,
  modifier: string,
  maxPayloadBytes = baseTask.maxPayloadBytes,
) {
  const { stored } = await bothWays(t, label, built, maxPayloadBytes);
  t.match(stored.outcome, new RegExp(`error: ${modifier}$`, 'i'), `${label}: ${modifier}`);
  t.equal(stored.payload, null, `${label}: nothing unpacked`);
}

t.test('refused alike from the store and from memory', async (t) => {
  // OAEP fails the same way every time; PKCS#1 v1.5 rejects implicitly with a random key.
  await refused(
    t,
    'for another certificate (OAEP)',
    encrypted('-aes256', { oaep: true, to: 'mallory' }),
    'decryption-failed',
  );
  const other = encrypted('-aes256', { to: 'mallory' });
  const memory = await openMessage(
    {
      ...baseTask,
      headers: other.headers,
      messageId: randomUUID(),
      body: other.body,
      receivedBytes: other.body.length,
    },
    store,
  );
  const id = randomUUID();
  await store.putBytes({ messageId: id, stage: 'received' }, other.body);
  const stored = await openMessage(
    { ...baseTask, headers: other.headers, messageId: id, body: null, receivedBytes: other.body.length },
    store,
  );
  t.equal(stored.outcome, memory.outcome, 'for another certificate (PKCS#1 v1.5): decryption-failed on both');
  t.match(stored.outcome, /decryption-failed$/);

  // The last byte of the next-to-last block XORs the padding byte: bad padding every time.
  const cbc = encrypted('-aes256');
  cbc.body[cbc.body.length - 17]! ^= 0xff;
  await refused(t, 'tampered CBC ciphertext', cbc, 'decryption-failed');
  const gcm = encrypted('-aes-256-gcm', { stream: true });
  gcm.body[gcm.body.length >> 1]! ^= 0x01;
  await refused(t, 'tampered GCM ciphertext', gcm, 'decryption-failed');

  const signed = signedOnly();
  const at = signed.body.indexOf(document.subarray(4096, 4112));
  signed.body[at]! ^= 0xff;
  await refused(t, 'tampered signed content', signed, 'integrity-check-failed');

  // ECDH: a message agreed with mallory's P-256 key, and one whose wrapped key is damaged.
  const forMallory = encrypted('-aes128', { to: 'mallory256', keyopt: ['ecdh_kdf_md:sha256'] });
  const { stored: ecStored } = await bothWays(t, 'ECDH for another P-256 certificate', forMallory);
  t.match(ecStored.outcome, /decryption-failed$/, 'ECDH for another certificate: decryption-failed');
  t.match(
    JSON.stringify(ecStored.refusal),
    /encrypted for the certificate with serial [0-9A-F]+; pier holds .*bob256/,
    'the refusal names the certificate the message was made for and those pier holds',
  );
  const damagedKey = encrypted('-aes128', { to: 'bob256', keyopt: ['ecdh_kdf_md:sha256'] });
  writeFixture(fixtures, 'damaged.der', damagedKey.body);
  // The wrapped key is the OCTET STRING after the recipient's serial; flip its first byte.
  const dump = openssl('asn1parse -inform DER -in damaged.der');
  const wrapped = /^\s*(\d+):d=\d+\s+hl=(\d+)\s+l=\s*24 prim: OCTET STRING/m.exec(dump)!;
  damagedKey.body[Number(wrapped[1]) + Number(wrapped[2])]! ^= 0x01;
  await refused(t, 'ECDH with a damaged wrapped key', damagedKey, 'decryption-failed');

  const truncated = encrypted('-aes256');
  await refused(
    t,
    'truncated EnvelopedData',
    { ...truncated, body: truncated.body.subarray(0, truncated.body.length - 1000) },
    'decryption-failed',
  );
  const truncatedBer = encrypted('-aes256', { stream: true });
  await refused(
    t,
    'truncated BER',
    { ...truncatedBer, body: truncatedBer.body.subarray(0, 1024 * 1024 + 5) },
    'decryption-failed',
  );
});

/** The body as a stream of pieces of every size from 1 byte up, to cross every boundary. */
async function* pieces(body: Buffer): AsyncIterable<Buffer> {
  let size = 1;
  for (let at = 0; at < body.length; at += size, size = (size * 7 + 3) % 70001 || 1)
    yield body.subarray(at, at + size);
}

t.test('the stream reader decrypts as decryptEnveloped does, in pieces of any size', async (t) => {
  const keys = [
    { certificate: bob.certificate, privateKey: bob.privateKey },
    {
      certificate: new X509Certificate(fixtures.read('bob384.crt')),
      privateKey: createPrivateKey(fixtures.read('bob384.key')),
    },
  ];
  for (const [label, built] of [
    ['DER', encrypted('-aes192')],
    ['BER -stream', encrypted('-aes-192-gcm', { stream: true })],
    ['ECDH P-384, BER -stream', encrypted('-aes-256-gcm', { stream: true, to: 'bob384' })],
  ] as const) {
    const streamed = await decryptEnvelopedStream(async () => pieces(built.body), keys);
    const memory = decryptEnveloped(built.body, keys);
    t.ok(streamed.content.equals(memory.content), `${label}: the same plaintext`);
    t.same(
      [streamed.algorithm, streamed.keyTransport, streamed.authenticated, streamed.recipient.fingerprint256],
      [memory.algorithm, memory.keyTransport, memory.authenticated, memory.recipient.fingerprint256],
      `${label}: the same algorithm, key transport and recipient`,
    );
  }
  const rc2 = (() => {
    writeFixture(fixtures, 'content.mime', entityOf(document));
    openssl(
      'cms -encrypt -binary -in content.mime -rc2 -recip bob.crt -outform DER -out rc2.der',
      ...['-provider', 'legacy', '-provider', 'default'],
    );
    return fixtures.read('rc2.der');
  })();
  // RC2 (pier's own RC2-CBC, rc2.ts) streams like the other ciphers.
  const rc2Streamed = await decryptEnvelopedStream(async () => pieces(rc2), keys);
  const rc2Memory = decryptEnveloped(rc2, keys);
  t.equal(rc2Streamed.algorithm, 'rc2-cbc', 'RC2 is read from the store');
  t.ok(rc2Streamed.content.equals(rc2Memory.content), 'RC2: the same plaintext as in memory');
  t.ok(rc2Streamed.content.equals(entityOf(document)), 'RC2: the entity openssl encrypted');
  const garbage = Buffer.concat([encrypted('-aes128').body, Buffer.from('trailing')]);
  await t.rejects(
    decryptEnvelopedStream(async () => pieces(garbage), keys),
    NotStreamable,
    'trailing data is left to memory',
  );
});

t.test(
  'an innermost compressed document is inflated into the store; its refusals stay the same',
  async (t) => {
    const compressed = compressedEntity(entityOf(document));
    const body = encrypt(compressed, '-aes256', { stream: true });
    const id = randomUUID();
    await store.putBytes({ messageId: id, stage: 'received' }, body);
    const keys = [{ certificate: bob.certificate, privateKey: bob.privateKey }];
    const options = {
      decryptionKeys: keys,
      verificationCerts: [alice.certificate],
      maxPayloadBytes: 1 << 30,
    };
    const opened = await unpackStored(store, { messageId: id, bytes: body.length }, enveloped, options);
    t.equal(opened.storedPayloadBytes, document.length, 'inflated straight into the unpacked stage');
    t.equal(opened.unpacked.payload.length, 0, 'not held in memory');
    t.ok((await stage(id, 'unpacked'))?.equals(document), 'the document byte for byte');
    t.equal(opened.unpacked.filename, 'large.bin');

    await refused(
      t,
      'inflating past the payload limit',
      { headers: enveloped, body, micOver: compressed },
      'decompression-failed',
      1024 * 1024,
    );
    // Damage past the first kilobyte: the headers inflate, the document does not.
    const damaged = Buffer.from(compressed);
    damaged[damaged.length - 4096]! ^= 0xff;
    await refused(
      t,
      'corrupt deflate data',
      { headers: enveloped, body: encrypt(damaged, '-aes256'), micOver: damaged },
      'decompression-failed',
    );
    const base64Inner = compressedEntity(
      Buffer.concat([
        Buffer.from('Content-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64\r\n\r\n'),
        Buffer.from(document.toString('base64').replace(/(.{76})/g, '$1\r\n')),
      ]),
    );
    await accepted(t, 'a base64 document inside, inflated in memory', {
      headers: enveloped,
      body: encrypt(base64Inner, '-aes128'),
      micOver: base64Inner,
    });
  },
);
