// Covers a live BouncyCastle S/MIME AS2 peer (test/fixtures/bc-as2-peer: bcjmail 1.72 on Jakarta Mail 2.0) sending to pier's running as2-receiver over HTTP, one JVM for every message: 4 signatures (SHA-1/256/384/512 with RSA) × 4 ciphers (3DES, AES-128/192/256-CBC) × compression off and before signing × signed and unsigned receipts (64), then AES-128/192/256-GCM in AuthEnvelopedData, compression after signing, RSASSA-PSS, SHA-224, SHA3-256 (which BouncyCastle labels micalg=unknown), RSA-OAEP, base64 parts as the libraries choose them, no receipt, unsigned or unencrypted messages, EC keys (ECDSA, ECDH with standard and cofactor KDFs) and 1.3 MiB documents. BouncyCastle verifies each signed receipt with pier's certificate and finds `processed` with the MIC it computed; pier writes each document byte for byte through a file-writer, stores the same MIC and names the algorithms. A message signed by a key pier does not know is refused, and the peer takes that receipt as no proof of delivery.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { messageByAs2Id, organization, partner, startReceiver, storeCertificate } from '../helpers/as2.js';
import { startBcSender, unavailable, type SendCommand } from '../helpers/bc-as2-peer.js';
import { makeFixtures } from '../helpers/certificates.js';
import { must, tempDir, waitForMessage } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { writeFixture } from '../helpers/smime.js';

const fixtures = makeFixtures(t);
fixtures.selfSigned('pier', '/O=pier/CN=pier.as2.example');
fixtures.selfSigned('bc', '/O=BouncyCastle peer/CN=bc.as2.example');
fixtures.selfSigned('stranger', '/O=stranger/CN=stranger.as2.example');
// The EC key set (the peer's second): ECDSA signatures and ECDH key agreement on P-256.
for (const name of ['pier-ec', 'bc-ec']) fixtures.ec(name, 'P-256');
const file = (name: string) => path.join(fixtures.dir, name);

const peer = startBcSender(t, [
  { ownCertificate: file('bc.crt'), ownKey: file('bc.key'), partnerCertificate: file('pier.crt') },
  { ownCertificate: file('bc-ec.crt'), ownKey: file('bc-ec.key'), partnerCertificate: file('pier-ec.crt') },
]);
if (typeof peer === 'string') unavailable(t, peer);
else await interop(peer);

async function interop(bc: Exclude<typeof peer, string>) {
  const server = await startTestServer(t);
  const dir = await tempDir(t);
  const inbox = path.join(dir, 'inbox');
  const pierCert = await storeCertificate(server, fixtures, 'pier');
  const bcCert = await storeCertificate(server, fixtures, 'bc', false);
  const strangerCert = await storeCertificate(server, fixtures, 'stranger', false);
  const pierEcCert = await storeCertificate(server, fixtures, 'pier-ec');
  const bcEcCert = await storeCertificate(server, fixtures, 'bc-ec', false);
  const url = await startReceiver(server);
  await organization(server, 'pier', 'PIER', pierCert);
  await organization(server, 'pierec', 'PIEREC', pierEcCert);
  const unused = 'http://127.0.0.1:9/as2';
  const signedEncrypted = {
    signing_algorithm: 'sha256',
    encryption_algorithm: 'aes256-cbc',
    compression: false,
    mdn_mode: 'sync' as const,
    mdn_signed: true,
  };
  // BCPEER must sign and encrypt; BCOPEN may leave out either; pier knows STRANGER by another key.
  await partner(server, 'bcpeer', 'BCPEER', unused, bcCert, signedEncrypted);
  await partner(server, 'bcopen', 'BCOPEN', unused, bcCert, {
    ...signedEncrypted,
    signing_algorithm: 'none',
    encryption_algorithm: 'none',
  });
  await partner(server, 'stranger', 'STRANGER', unused, strangerCert, signedEncrypted);
  await partner(server, 'bcec', 'BCEC', unused, bcEcCert, signedEncrypted);
  await must(server, '/plugins/configs?type=file-writer', {
    name: 'inbox',
    directory: inbox,
    path_pattern: '{filename}',
    if_exists: 'fail',
  });
  for (const [from, to] of [
    ['bcpeer', 'pier'],
    ['bcopen', 'pier'],
    ['bcec', 'pierec'],
  ])
    await must(server, '/routes', { source_plugin: 'in', from, to, target_plugin: 'inbox' });

  /** `large`: above 1 MiB, where pier's receiver decrypts and inflates from the store as it reads. */
  type Case = Omit<SendCommand, 'id' | 'url' | 'to' | 'file' | 'name' | 'type'> & {
    large?: boolean;
    to?: string;
  };
  /** The peer's EC key set to pier's EC organization: ECDSA, and ECDH with this KDF. */
  const ec = (kdf: string) => ({ from: 'BCEC', to: 'PIEREC', keys: 1, kdf });
  const cases: Case[] = [];
  for (const sign of ['sha1', 'sha256', 'sha384', 'sha512'])
    for (const cipher of ['3des', 'aes128-cbc', 'aes192-cbc', 'aes256-cbc'])
      for (const compress of ['none', 'before-sign'] as const)
        for (const receipt of ['signed', 'unsigned'] as const)
          cases.push({
            from: 'BCPEER',
            sign,
            cipher,
            compress,
            ...(receipt === 'signed' ? {} : { receipt }),
          });
  cases.push(
    { from: 'BCPEER', sign: 'sha256', cipher: 'aes128-gcm', compress: 'none' },
    { from: 'BCPEER', sign: 'sha384', cipher: 'aes192-gcm', compress: 'before-sign' },
    { from: 'BCPEER', sign: 'sha512', cipher: 'aes256-gcm', compress: 'after-sign' },
    { from: 'BCPEER', sign: 'sha1', cipher: 'aes128-cbc', compress: 'after-sign' },
    { from: 'BCPEER', sign: 'sha256', cipher: '3des', compress: 'after-sign' },
    { from: 'BCPEER', sign: 'rsa-pss-sha256', cipher: 'aes256-cbc', compress: 'none' },
    { from: 'BCPEER', sign: 'sha256', cipher: 'aes256-cbc', compress: 'none', transport: 'oaep' },
    { from: 'BCOPEN', sign: 'none', cipher: 'aes256-cbc', compress: 'before-sign' },
    { from: 'BCOPEN', sign: 'sha256', cipher: 'none', compress: 'none' },
    { from: 'BCOPEN', sign: 'sha512', cipher: 'none', compress: 'before-sign' },
    { from: 'BCOPEN', sign: 'none', cipher: 'none', compress: 'before-sign' },
    { from: 'BCPEER', sign: 'sha256', cipher: 'aes256-cbc', compress: 'none', receipt: 'none' },
    { from: 'BCPEER', sign: 'sha224', cipher: 'aes128-cbc', compress: 'none' },
    { from: 'BCPEER', sign: 'sha3-256', cipher: 'aes128-cbc', compress: 'none' },
    { from: 'BCPEER', sign: 'rsa-pss-sha512', cipher: 'aes128-gcm', compress: 'before-sign' },
    { from: 'BCPEER', sign: 'sha256', cipher: 'aes128-cbc', compress: 'none', encoding: 'library' },
    { from: 'BCPEER', sign: 'sha256', cipher: 'aes128-cbc', compress: 'before-sign', encoding: 'library' },
    { from: 'BCPEER', sign: 'sha1', cipher: '3des', compress: 'after-sign', encoding: 'library' },
    { ...ec('sha1'), sign: 'sha256', cipher: 'aes128-cbc', compress: 'none' },
    { ...ec('sha256'), sign: 'sha384', cipher: 'aes256-gcm', compress: 'before-sign' },
    { ...ec('cofactor-sha256'), sign: 'sha512', cipher: 'aes192-cbc', compress: 'after-sign' },
    { ...ec('sha384'), sign: 'sha256', cipher: '3des', compress: 'none' },
    { ...ec('sha512'), sign: 'sha256', cipher: 'aes256-cbc', compress: 'none', receipt: 'unsigned' },
    { from: 'BCPEER', sign: 'sha256', cipher: 'aes256-cbc', compress: 'none', large: true },
    { from: 'BCPEER', sign: 'sha384', cipher: 'aes128-gcm', compress: 'before-sign', large: true },
    { from: 'BCPEER', sign: 'sha512', cipher: '3des', compress: 'after-sign', large: true },
  );

  let number = 0;
  for (const c of cases) {
    const n = ++number;
    const { large, ...command } = c;
    const label = `${c.sign} ${c.cipher} compress=${c.compress}${c.transport ? ` ${c.transport}` : ''}${c.receipt ? ` receipt=${c.receipt}` : ''}${c.encoding ? ` encoding=${c.encoding}` : ''}${c.kdf ? ` EC, ECDH ${c.kdf} KDF` : ''}${large ? ' 1.3 MiB' : ''}`;
    t.test(`BouncyCastle → pier: ${label}`, async (t) => {
      const name = `bc-${n}-${c.sign}-${c.cipher}-${c.compress}.edi`;
      // CRLF, bare LF, and bytes above 0x7f: the document must arrive as it left.
      const document = Buffer.concat([
        Buffer.from(`ISA*00*${label}~\r\nGS*PO*BCPEER*PIER~\nST*850*${n}~\r\n`),
        Buffer.from([0xe9, 0xff, 0x00, 0x0d, 0x0a]),
        Buffer.from('SE*3*0001~\n'.repeat(n * 7)),
        large ? randomBytes(1300 * 1024) : Buffer.alloc(0),
      ]);
      writeFixture(fixtures, name, document);
      const result = await bc.send({
        to: 'PIER',
        ...command,
        id: String(n),
        url,
        file: file(name),
        name,
        type: 'application/edi-x12',
      });
      t.equal(result.error, undefined, 'the peer sent and judged the receipt');
      t.equal(result.http, 200);
      if (c.receipt === 'none') t.equal(result.disposition, undefined, 'no receipt asked, none read');
      else {
        t.equal(result.disposition, 'automatic-action/MDN-sent-automatically; processed');
        t.equal(result.receivedMic, result.mic, 'the receipt carries the MIC BouncyCastle computed');
        const signedReceipt = c.receipt !== 'unsigned';
        t.equal(result.receiptSigned, signedReceipt, 'the receipt is signed as asked');
        t.equal(result.receiptVerified, signedReceipt, 'BouncyCastle verified it with pier’s certificate');
        t.same(result.problems, [], 'and found nothing wrong with it');
      }
      t.equal(result.ok, true);

      const stored = await messageByAs2Id(server, result.messageId);
      const done = await waitForMessage(server, stored.id, (m) => m.status !== 'InProgress', 'written');
      t.equal(done.status, 'Delivered', done.deliveries[0]?.last_error ?? '');
      t.equal(done.file_name, name);
      const as2 = done.protocols.as2;
      t.equal(as2.mic, result.mic, 'pier stored the MIC BouncyCastle computed');
      t.equal(as2.signed, c.sign !== 'none');
      if (c.sign !== 'none') {
        t.equal(
          as2.signature.algorithm,
          // sha256 and rsa-pss-sha256 sign with sha-256; sha3-256 is its own name.
          c.sign.startsWith('sha3-') ? c.sign : c.sign.replace(/^(rsa-pss-)?sha/, 'sha-'),
        );
        t.equal(
          as2.signature.scheme,
          c.kdf ? 'ecdsa' : c.sign.startsWith('rsa-pss') ? 'rsa-pss' : 'rsa-pkcs1',
        );
      }
      t.equal(as2.encrypted, c.cipher !== 'none');
      if (c.cipher !== 'none')
        t.match(as2.encryption, {
          algorithm: c.cipher,
          key_transport: c.kdf ? `ecdh-${c.kdf}kdf` : c.transport === 'oaep' ? 'rsa-oaep' : 'rsa-pkcs1',
        });
      t.equal(as2.compressed, c.compress !== 'none');
      t.same(await readFile(path.join(inbox, name)), document, 'the file-writer wrote the document as sent');
    });
  }

  t.test('a signature pier cannot verify: refused, and the peer takes no receipt as proof', async (t) => {
    writeFixture(fixtures, 'stranger.edi', 'ISA*00*stranger~\r\n');
    const result = await bc.send({
      id: 'stranger',
      url,
      from: 'STRANGER',
      to: 'PIER',
      file: file('stranger.edi'),
      name: 'stranger.edi',
      type: 'application/edi-x12',
      sign: 'sha256',
      cipher: 'aes128-cbc',
      compress: 'none',
    });
    t.equal(result.http, 200);
    t.equal(result.receiptVerified, true, 'pier’s refusal is signed');
    t.match(result.disposition, /; processed\/error: authentication-failed$/i);
    t.equal(result.ok, false);
    t.ok(result.problems?.includes('not processed'));
    const stored = await messageByAs2Id(server, result.messageId);
    t.equal(stored.status, 'Refused');
  });
}
