// Covers what the as2-sender puts on the wire for each per-partner interop option of the remote profile (docs/interop.md), captured by a plain HTTP server on loopback and read with `openssl cms` where CMS is involved: body framing, transfer encoding, filename quoting, MIC spelling, key transport, signed attributes, CMSAlgorithmProtection, the biztalk preset, as2bis refusing a weak profile, and a pier → pier delivery with a non-default combination still receipted.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import {
  agreement,
  organization,
  partner,
  startReceiver,
  startSender,
  storeCertificate,
  type Profile,
} from '../helpers/as2.js';
import { startCaptureServer, type CapturedRequest } from '../helpers/capture.js';
import { makeFixtures } from '../helpers/certificates.js';
import { sql } from '../helpers/database.js';
import { upload, waitForMessage, waitForMessages, type Message } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);
const f = makeFixtures(t);
f.selfSigned('ours', '/O=acme/CN=acme.example');
f.selfSigned('theirs', '/O=partner/CN=partner.example');
const ours = await storeCertificate(server, f, 'ours');
const theirs = await storeCertificate(server, f, 'theirs', false);
const capture = await startCaptureServer(t);
// Asynchronous receipts are only requested (never answered) here, so any address will do.
await organization(server, 'acme', 'ACME', ours, 'http://127.0.0.1:9/mdn');
await startSender(server, 'out');

const documentText = "UNB+UNOC:3+ACME+PARTNER+261121:1200+1'\r\nUNH+1+ORDERS:D:96A:UN'\r\nUNZ+1+1'\r\n";
const signedOnly: Profile = {
  signing_algorithm: 'sha256',
  encryption_algorithm: 'none',
  compression: false,
  mdn_mode: 'none',
  mdn_signed: false,
};

let partners = 0;

/** A new partner whose endpoint is the capture server, sent one document: what arrived there. */
async function sendTo(
  profile: Partial<Profile>,
  options: Record<string, unknown>,
  fileName = 'po-1.edi',
): Promise<{ request: CapturedRequest; message: Message }> {
  const name = `p${++partners}`;
  const full = { ...signedOnly, ...profile };
  await partner(server, name, name.toUpperCase(), `${capture.url}/${name}`, theirs, full, options);
  const made = await upload(
    server,
    { from: 'acme', to: name, target: 'out' },
    { name: fileName, content: documentText },
  );
  if (made.status !== 201) throw new Error(`upload answered ${made.status}: ${made.raw}`);
  const request = await capture.next(`/${name}`);
  const message =
    full.mdn_mode === 'none'
      ? await waitForMessage(server, made.body.data.id, (m) => m.status === 'Delivered', `${name} delivered`)
      : (await server.call('GET', `/api/v1/messages/${made.body.data.id}`)).body.data;
  return { request, message };
}

function write(name: string, bytes: Buffer | string): void {
  writeFileSync(path.join(f.dir, name), bytes);
}

/** The request as an S/MIME file openssl reads: its MIME headers, a blank line, the body. */
function asSmime(request: CapturedRequest): Buffer {
  return Buffer.concat([
    Buffer.from(`MIME-Version: 1.0\r\nContent-Type: ${request.headers['content-type']}\r\n\r\n`),
    request.body,
  ]);
}

/** The signed part of a multipart/signed body, exactly as signed. */
function signedPart(request: CapturedRequest): Buffer {
  const boundary = /boundary="?([^";]+)"?/.exec(String(request.headers['content-type']))![1]!;
  const start = request.body.indexOf(`--${boundary}\r\n`) + boundary.length + 4;
  return request.body.subarray(start, request.body.indexOf(`\r\n--${boundary}`, start));
}

/** openssl's reading of the signature: the printed SignedData, after checking it verifies over the signed part. */
function opensslSignature(request: CapturedRequest, label: string): string {
  write(`${label}.eml`, asSmime(request));
  write(`${label}.part`, signedPart(request));
  f.openssl(`cms -cmsout -in ${label}.eml -outform DER -out ${label}.sig`);
  f.openssl(
    `cms -verify -binary -inform DER -in ${label}.sig -content ${label}.part -CAfile ours.crt -purpose any -out ${label}.verified`,
  );
  return f.openssl(`cms -cmsout -print -inform DER -in ${label}.sig`);
}

/** openssl's reading of an encrypted body: the printed EnvelopedData and the decrypted entity. */
function opensslEnvelope(request: CapturedRequest, label: string): { printed: string; decrypted: string } {
  write(`${label}.p7m`, request.body);
  return {
    printed: f.openssl(`cms -cmsout -print -inform DER -in ${label}.p7m`),
    decrypted: f.openssl(
      `cms -decrypt -binary -inform DER -in ${label}.p7m -recip theirs.crt -inkey theirs.key`,
    ),
  };
}

/** The header section of the signed part, as one text. */
const partHeaders = (request: CapturedRequest) => {
  const part = signedPart(request);
  return part.subarray(0, part.indexOf('\r\n\r\n')).toString('latin1');
};
const partBody = (request: CapturedRequest) => {
  const part = signedPart(request);
  return part.subarray(part.indexOf('\r\n\r\n') + 4);
};

const algorithmProtectionOid = '1.2.840.113549.1.9.52';

t.test('body_framing: Content-Length by default, chunked transfer coding when chosen', async (t) => {
  const { request: plain } = await sendTo({}, {});
  t.equal(plain.headers['content-length'], String(plain.body.length), 'Content-Length is the body size');
  t.equal(plain.headers['transfer-encoding'], undefined, 'not chunked');

  const { request: chunked } = await sendTo({}, { body_framing: 'chunked' });
  t.equal(chunked.headers['transfer-encoding'], 'chunked');
  t.equal(chunked.headers['content-length'], undefined, 'no Content-Length');
  t.ok(partBody(chunked).equals(Buffer.from(documentText)), 'the body arrived whole');
});

t.test('transfer_encoding: the document part is binary by default, base64 when chosen', async (t) => {
  const { request: binary } = await sendTo({}, {});
  t.match(partHeaders(binary), /^Content-Transfer-Encoding: binary$/m);
  t.ok(partBody(binary).equals(Buffer.from(documentText)), 'the document as is');

  const { request: signed } = await sendTo({}, { transfer_encoding: 'base64' });
  t.match(partHeaders(signed), /^Content-Transfer-Encoding: base64$/m);
  const encoded = partBody(signed).toString('latin1');
  t.match(
    encoded,
    /^[A-Za-z0-9+/=]{1,76}(\r\n[A-Za-z0-9+/=]{1,76})*$/,
    'base64 in lines of at most 76 characters',
  );
  t.equal(Buffer.from(encoded, 'base64').toString('latin1'), documentText);
  t.match(opensslSignature(signed, 'base64-signed'), /signedAttrs:/, 'the signature covers the base64 form');

  const { request: bare } = await sendTo({ signing_algorithm: 'none' }, { transfer_encoding: 'base64' });
  t.equal(
    bare.headers['content-transfer-encoding'],
    'base64',
    'unsigned: the HTTP body is the document part',
  );
  t.equal(Buffer.from(bare.body.toString('latin1'), 'base64').toString('latin1'), documentText);
});

t.test('filename_quoting: filename="…" by default, a bare token when chosen', async (t) => {
  const { request: quoted } = await sendTo({}, {});
  t.match(partHeaders(quoted), /^Content-Disposition: attachment; filename="po-1\.edi"$/m);
  t.match(quoted.headers['content-disposition'], /^attachment; filename="po-1\.edi"/);

  const { request: token } = await sendTo({}, { filename_quoting: 'token' });
  t.match(partHeaders(token), /^Content-Disposition: attachment; filename=po-1\.edi$/m);
  t.equal(token.headers['content-disposition'], 'attachment; filename=po-1.edi', 'the HTTP header too');
});

t.test(
  'mic_spelling: sha-256 by default, sha256 when rfc3851, in micalg and the receipt request',
  async (t) => {
    const asyncSigned = { mdn_mode: 'async', mdn_signed: true } as const;
    const { request: current } = await sendTo(asyncSigned, {});
    t.match(current.headers['content-type'], /micalg="?sha-256[";]/);
    t.equal(
      current.headers['disposition-notification-options'],
      'signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256',
    );

    const { request: older } = await sendTo(asyncSigned, { mic_spelling: 'rfc3851' });
    t.match(older.headers['content-type'], /micalg="?sha256[";]/);
    t.equal(
      older.headers['disposition-notification-options'],
      'signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha256',
    );
  },
);

t.test('key_transport: openssl reads rsaEncryption by default and rsaesOaep when chosen', async (t) => {
  const encrypted = { signing_algorithm: 'none', encryption_algorithm: 'aes256-cbc' };
  const { request: pkcs1 } = await sendTo(encrypted, {});
  const v15 = opensslEnvelope(pkcs1, 'pkcs1');
  t.match(v15.printed, /keyEncryptionAlgorithm:\s*\n\s*algorithm: rsaEncryption/);
  t.match(v15.decrypted, documentText, 'openssl decrypts it');

  const { request: oaep } = await sendTo(encrypted, { key_transport: 'rsa-oaep' });
  const opened = opensslEnvelope(oaep, 'oaep');
  t.match(
    opened.printed,
    /keyEncryptionAlgorithm:\s*\n\s*algorithm: rsaesOaep \(1\.2\.840\.113549\.1\.1\.7\)/,
  );
  t.notMatch(opened.printed, /algorithm: rsaEncryption/);
  t.match(opened.decrypted, /^Content-Type: application\/octet-stream\r?$/m);
  t.match(opened.decrypted, documentText, 'openssl decrypts it');
});

t.test('signed_attributes and algorithm_protection: what openssl finds in the signature', async (t) => {
  const { request: full } = await sendTo({}, {});
  const withAll = opensslSignature(full, 'default');
  t.match(withAll, /signedAttrs:\s*\n\s*object: contentType/);
  t.match(withAll, algorithmProtectionOid, 'CMSAlgorithmProtection by default');

  const { request: bare } = await sendTo({}, { signed_attributes: false });
  const without = opensslSignature(bare, 'no-attributes');
  t.match(without, /signedAttrs:\s*\n\s*<ABSENT>/, 'no signed attributes');

  const { request: unprotected } = await sendTo({}, { algorithm_protection: false });
  const noProtection = opensslSignature(unprotected, 'no-protection');
  t.match(noProtection, /object: messageDigest/, 'the other signed attributes stay');
  t.notMatch(noProtection, algorithmProtectionOid, 'no CMSAlgorithmProtection');
});

t.test('the biztalk preset sends OAEP key transport in a chunked request', async (t) => {
  const { request, message } = await sendTo(
    { encryption_algorithm: 'aes128-cbc' },
    { interop_preset: 'biztalk' },
  );
  t.equal(request.headers['transfer-encoding'], 'chunked');
  t.equal(request.headers['content-length'], undefined);
  const opened = opensslEnvelope(request, 'biztalk');
  t.match(opened.printed, /algorithm: rsaesOaep/);
  t.match(opened.decrypted, /multipart\/signed/, 'signed inside');
  t.equal(message.status, 'Delivered');
});

t.test('as2bis: a modern profile sends; a weak one changed behind the API sends nothing', async (t) => {
  const { request } = await sendTo({ mdn_mode: 'async', mdn_signed: true }, { as2bis: true });
  t.match(request.headers['content-type'], /micalg="?sha-256[";]/);
  t.match(request.headers['disposition-notification-options'], /signed-receipt-micalg=optional, sha-256$/);

  const name = `p${++partners}`;
  await partner(server, name, name.toUpperCase(), `${capture.url}/${name}`, theirs, signedOnly, {
    as2bis: true,
  });
  // The API refuses sha1 with as2bis; the sender must hold the line for a row changed another way.
  await sql(server.db.url, "update as2_remote_profile set signing_algorithm = 'sha1' where as2id = $1", [
    name.toUpperCase(),
  ]);
  const made = await upload(
    server,
    { from: 'acme', to: name, target: 'out' },
    { name: 'weak.edi', content: documentText },
  );
  const failed = await waitForMessage(
    server,
    made.body.data.id,
    (m) => m.status === 'Error',
    'refused to send',
  );
  t.equal(
    failed.deliveries[0].last_error,
    "Not sent: sha-1 is not generated under the as2bis rules (the partner's profile has as2bis on)",
  );
  t.notOk(
    capture.requests.some((r) => r.path === `/${name}`),
    'nothing reached the partner',
  );
});

t.test('pier → pier with a non-default combination is delivered with a verified receipt', async (t) => {
  const url = await startReceiver(server);
  const profile: Profile = {
    signing_algorithm: 'sha384',
    encryption_algorithm: 'aes128-gcm',
    compression: true,
    mdn_mode: 'sync',
    mdn_signed: true,
  };
  await agreement(server, 'x', url, ours, profile, {
    interop_preset: 'biztalk',
    signed_attributes: false,
    transfer_encoding: 'base64',
    mic_spelling: 'rfc3851',
    filename_quoting: 'token',
    as2bis: true,
  });
  const made = await upload(
    server,
    { from: 'sx', to: 'rx', target: 'out' },
    { name: 'orders-7.edi', content: documentText },
  );
  t.equal(made.status, 201);
  const sent = await waitForMessage(
    server,
    made.body.data.id,
    (m) => m.status === 'Delivered' || m.status === 'Error',
    'delivered or failed',
  );
  t.equal(sent.status, 'Delivered', sent.deliveries[0]?.last_error ?? '');
  t.match(sent.protocols.as2.mdn, {
    disposition: 'automatic-action/MDN-sent-automatically; processed',
    signed: true,
    verified: true,
  });
  t.match(sent.protocols.as2.mdn.mic, /, sha384$/, 'the receipt echoes the rfc3851 spelling');
  const [received] = await waitForMessages(
    server,
    'from=spx',
    (list) => list.length > 0,
    'the received message',
  );
  t.equal(received.file_name, 'orders-7.edi');
  t.equal(received.protocols.as2.mic, sent.protocols.as2.mic, 'both sides computed the same MIC');
  t.match(
    received.protocols.as2.headers['disposition-notification-options'],
    /signed-receipt-micalg=optional, sha384$/,
  );
  const stored = await server.call('GET', `/api/v1/messages/${received.id}/payload?stage=unpacked`);
  t.equal(stored.raw, documentText, 'the document arrived intact');
});
