// Covers pier's as2-sender sending to a live BouncyCastle S/MIME AS2 peer (test/fixtures/bc-as2-peer: bcjmail 1.72 on Jakarta Mail 2.0, com.sun.net.httpserver on loopback), one JVM for every message: 4 signatures (SHA-1/256/384/512 with RSA) × 4 ciphers (3DES, AES-128/192/256-CBC) × compression off and before signing × signed and unsigned receipts (64), then AES-GCM, compression after signing, RSASSA-PSS, SHA3-256, RSA-OAEP, an unsigned and an unencrypted message, each per-partner interop option that changes the wire (base64, rfc3851 spelling, no signed attributes, no algorithm protection, chunked, token filenames), EC keys (ECDSA, ECDH) and 1.3 MiB documents (the streaming sender). BouncyCastle decrypts, decompresses and verifies each with pier's certificate, writes the document byte for byte and answers a receipt with the MIC it computed; pier verifies the receipt, finds its own MIC and marks the message Delivered. A receipt signed by a key the profile does not list fails the delivery, and a message signed by a key the peer does not know comes back refused in the peer's words.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { organization, partner, startSender, storeCertificate, type Profile } from '../helpers/as2.js';
import { startBcReceiver, unavailable } from '../helpers/bc-as2-peer.js';
import { makeFixtures } from '../helpers/certificates.js';
import { sendByHand, tempDir } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { oids } from '../../pki/oids.js';

const fixtures = makeFixtures(t);
fixtures.selfSigned('pier', '/O=pier/CN=pier.as2.example');
fixtures.selfSigned('impostor', '/O=impostor/CN=impostor.as2.example');
fixtures.selfSigned('bc', '/O=BouncyCastle peer/CN=bc.as2.example');
fixtures.selfSigned('other', '/O=other/CN=other.as2.example');
// The EC key set (the peer's second): ECDSA signatures and ECDH key agreement on P-256.
for (const name of ['pier-ec', 'bc-ec']) fixtures.ec(name, 'P-256');
const file = (name: string) => path.join(fixtures.dir, name);
const written = await tempDir(t, 'pier-bc-received-');

const peer = await startBcReceiver(
  t,
  [
    { ownCertificate: file('bc.crt'), ownKey: file('bc.key'), partnerCertificate: file('pier.crt') },
    { ownCertificate: file('bc-ec.crt'), ownKey: file('bc-ec.key'), partnerCertificate: file('pier-ec.crt') },
  ],
  written,
);
if (typeof peer === 'string') unavailable(t, peer);
else await interop(peer);

/** What the peer reports for each of pier's names. */
const cipherOids: Record<string, string> = {
  '3des': oids.desEde3Cbc,
  'aes128-cbc': oids.aes128Cbc,
  'aes192-cbc': oids.aes192Cbc,
  'aes256-cbc': oids.aes256Cbc,
  'aes128-gcm': oids.aes128Gcm,
  'aes256-gcm': oids.aes256Gcm,
};
const digestOids: Record<string, string> = {
  sha1: oids.sha1,
  sha256: oids.sha256,
  sha384: oids.sha384,
  sha512: oids.sha512,
  'sha3-256': oids.sha3_256,
  'rsa-pss-sha256': oids.sha256,
};

interface Case {
  profile: Profile;
  compress: 'off' | 'before-sign' | 'after-sign';
  /** Remote profile fields beyond the five of Profile. */
  extra?: Record<string, unknown>;
  /** Above 1 MiB, where pier's sender packs from a file as it streams. */
  large?: boolean;
  /** pier's EC organization to the peer's EC key set: ECDSA, and ECDH (RFC 5753). */
  ec?: boolean;
}

/** The AES key wrap pier writes under ECDH: as strong as the content key (3DES's is 24 bytes). */
const wrapOids: Record<string, string> = {
  '3des': oids.aes192Wrap,
  'aes128-cbc': oids.aes128Wrap,
  'aes128-gcm': oids.aes128Wrap,
  'aes192-cbc': oids.aes192Wrap,
  'aes256-cbc': oids.aes256Wrap,
  'aes256-gcm': oids.aes256Wrap,
};

async function interop(bc: Exclude<typeof peer, string>) {
  const server = await startTestServer(t);
  const pierCert = await storeCertificate(server, fixtures, 'pier');
  const impostorCert = await storeCertificate(server, fixtures, 'impostor');
  const bcCert = await storeCertificate(server, fixtures, 'bc', false);
  const otherCert = await storeCertificate(server, fixtures, 'other', false);
  const pierEcCert = await storeCertificate(server, fixtures, 'pier-ec');
  const bcEcCert = await storeCertificate(server, fixtures, 'bc-ec', false);
  await organization(server, 'pier', 'PIER', pierCert);
  await organization(server, 'pierec', 'PIEREC', pierEcCert);
  await organization(server, 'impostor', 'IMPOSTOR', impostorCert);
  await startSender(server, 'out');
  await startSender(server, 'out-after', { compression_order: 'after-sign' });

  const profile = (signing: string, encryption: string, compression = false): Profile => ({
    signing_algorithm: signing,
    encryption_algorithm: encryption,
    compression,
    mdn_mode: 'sync',
    mdn_signed: true,
  });
  const cases: Case[] = [];
  for (const sign of ['sha1', 'sha256', 'sha384', 'sha512'])
    for (const cipher of ['3des', 'aes128-cbc', 'aes192-cbc', 'aes256-cbc'])
      for (const compress of ['off', 'before-sign'] as const)
        for (const mdn_signed of [true, false])
          cases.push({ profile: { ...profile(sign, cipher, compress !== 'off'), mdn_signed }, compress });
  cases.push(
    { profile: profile('sha256', 'aes128-gcm'), compress: 'off' },
    { profile: profile('sha512', 'aes256-gcm', true), compress: 'before-sign' },
    { profile: profile('sha384', 'aes192-cbc', true), compress: 'after-sign' },
    { profile: profile('sha1', '3des', true), compress: 'after-sign' },
    { profile: profile('rsa-pss-sha256', 'aes256-cbc'), compress: 'off' },
    { profile: profile('sha3-256', 'aes256-cbc'), compress: 'off' },
    { profile: profile('sha256', 'aes256-cbc'), compress: 'off', extra: { key_transport: 'rsa-oaep' } },
    { profile: profile('none', 'aes256-cbc', true), compress: 'before-sign' },
    { profile: profile('sha256', 'none'), compress: 'off' },
    // pier's per-partner interop options (docs/interop.md), each against BouncyCastle.
    { profile: profile('sha256', 'aes128-cbc'), compress: 'off', extra: { transfer_encoding: 'base64' } },
    { profile: profile('sha1', 'aes128-cbc'), compress: 'off', extra: { mic_spelling: 'rfc3851' } },
    { profile: profile('sha256', 'aes128-cbc'), compress: 'off', extra: { signed_attributes: false } },
    { profile: profile('sha256', 'aes128-cbc'), compress: 'off', extra: { algorithm_protection: false } },
    { profile: profile('sha256', 'aes128-cbc'), compress: 'off', extra: { body_framing: 'chunked' } },
    { profile: profile('sha256', 'aes128-cbc'), compress: 'off', extra: { filename_quoting: 'token' } },
    { profile: profile('sha256', 'aes128-cbc'), compress: 'off', ec: true },
    { profile: profile('sha384', 'aes256-gcm', true), compress: 'before-sign', ec: true },
    { profile: profile('sha512', 'aes192-cbc', true), compress: 'after-sign', ec: true },
    { profile: profile('sha256', '3des'), compress: 'off', ec: true },
    { profile: profile('sha3-256', 'aes256-cbc'), compress: 'off', ec: true },
    { profile: { ...profile('sha256', 'aes128-gcm'), mdn_signed: false }, compress: 'off', ec: true },
    { profile: profile('sha256', 'aes256-cbc'), compress: 'off', large: true },
    { profile: profile('sha384', 'aes128-gcm', true), compress: 'before-sign', large: true },
    { profile: profile('sha512', '3des', true), compress: 'after-sign', large: true },
  );

  let number = 0;
  for (const c of cases) {
    const n = ++number;
    const { signing_algorithm: sign, encryption_algorithm: cipher, mdn_signed } = c.profile;
    const label = `${sign} ${cipher} compress=${c.compress}${c.extra ? ` ${JSON.stringify(c.extra)}` : ''}${mdn_signed ? '' : ' unsigned receipt'}${c.large ? ' 1.3 MiB' : ''}${c.ec ? ' EC (ECDSA, ECDH)' : ''}`;
    t.test(`pier → BouncyCastle: ${label}`, async (t) => {
      await partner(server, `bc${n}`, `BC${n}`, bc.url, c.ec ? bcEcCert : bcCert, c.profile, c.extra);
      const name = `pier-${n}-${sign}-${cipher}-${c.compress}.edi`;
      // CRLF, bare LF, and bytes above 0x7f: the document must arrive as it left.
      const content = Buffer.concat([
        Buffer.from(`ISA*00*${label}~\r\nGS*PO*PIER*BC${n}~\nST*850*${n}~\r\n`),
        Buffer.from([0xe9, 0xff, 0x00, 0x0d, 0x0a]),
        Buffer.from('SE*3*0001~\n'.repeat(n * 7)),
        c.large ? randomBytes(1300 * 1024) : Buffer.alloc(0),
      ]);
      const sent = await sendByHand(
        server,
        {
          from: c.ec ? 'pierec' : 'pier',
          to: `bc${n}`,
          target: c.compress === 'after-sign' ? 'out-after' : 'out',
        },
        { name, content },
      );
      t.equal(sent.status, 'Delivered', sent.deliveries[0]?.last_error ?? '');
      const as2 = sent.protocols.as2;
      t.match(as2.mdn, {
        disposition: 'automatic-action/MDN-sent-automatically; processed',
        signed: mdn_signed,
        ...(mdn_signed ? { verified: true } : {}),
      });

      const seen = await bc.received(as2.message_id);
      t.equal(seen.error, undefined, 'the peer read the message');
      t.equal(seen.refused, undefined, 'and did not refuse it');
      // The peer answers in the spelling pier asked for (sha1 under rfc3851); pier shows its own.
      const asked = c.extra?.mic_spelling === 'rfc3851' ? as2.mic.replace(', sha-', ', sha') : as2.mic;
      t.equal(seen.mic, asked, 'BouncyCastle computed the MIC pier computed');
      t.equal(seen.receiptSigned, mdn_signed, 'the receipt is signed as pier asked');
      const layers = [
        ...(cipher === 'none' ? [] : ['encrypted']),
        ...(c.compress === 'after-sign' ? ['compressed'] : []),
        ...(sign === 'none' ? [] : ['signed']),
        ...(c.compress === 'before-sign' ? ['compressed'] : []),
      ];
      t.same(seen.layers, layers, 'BouncyCastle took the layers off in pier’s order');
      if (cipher !== 'none') {
        t.equal(seen.encryption, cipherOids[cipher], 'the cipher');
        if (c.ec) {
          t.equal(seen.keyTransport, oids.dhSinglePassStdDhSha256Kdf, 'ECDH with the KDF of P-256');
          t.equal(seen.keyWrap, wrapOids[cipher], 'the key wrap as strong as the content key');
        } else
          t.equal(
            seen.keyTransport,
            c.extra?.key_transport === 'rsa-oaep' ? oids.rsaesOaep : oids.rsaEncryption,
            'the key transport',
          );
      }
      if (sign !== 'none') {
        t.equal(seen.digest, digestOids[sign], 'the signature’s digest');
        if (sign.startsWith('rsa-pss')) t.equal(seen.signature, oids.rsassaPss, 'RSASSA-PSS');
        if (c.ec)
          t.match(
            seen.signature,
            /^1\.2\.840\.10045\.4\.3\.|^2\.16\.840\.1\.101\.3\.4\.3\.(9|10|11|12)$/,
            'ECDSA',
          );
      }
      t.equal(seen.filename, name);
      t.same(await readFile(seen.file!), content, 'BouncyCastle wrote the document as pier read it');
    });
  }

  t.test('a receipt signed by a key the profile does not list fails the delivery', async (t) => {
    await partner(server, 'bcwrongkey', 'BCWRONGKEY', bc.url, bcCert, profile('sha256', 'aes128-cbc'), {
      signature_certificate_ids: [otherCert],
    });
    const sent = await sendByHand(
      server,
      { from: 'pier', to: 'bcwrongkey', target: 'out' },
      { name: 'wrong-key.edi', content: 'ISA*00*wrong key~\r\n' },
    );
    const seen = await bc.received(sent.protocols.as2.message_id);
    t.equal(seen.refused, undefined, 'the peer processed the message');
    t.not(sent.status, 'Delivered');
    t.match(sent.deliveries[0]?.last_error, /receipt/i);
  });

  t.test('a message signed by a key the peer does not know comes back refused', async (t) => {
    await partner(server, 'bcimpostor', 'BCIMPOSTOR', bc.url, bcCert, profile('sha256', 'aes128-cbc'));
    const sent = await sendByHand(
      server,
      { from: 'impostor', to: 'bcimpostor', target: 'out' },
      { name: 'impostor.edi', content: 'ISA*00*impostor~\r\n' },
    );
    const seen = await bc.received(sent.protocols.as2.message_id);
    t.match(seen.refused, /^authentication-failed/);
    t.equal(seen.file, undefined, 'nothing written');
    t.not(sent.status, 'Delivered');
    t.match(sent.deliveries[0]?.last_error, /authentication-failed/);
  });
}
