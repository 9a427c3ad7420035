/**
 * Moving AS2 messages between HTTP and the S/MIME files the `openssl cms` command reads and
 * writes, and checking signatures with openssl: the independent implementation of the tests.
 * With it, openssl plays the trading partner both ways: posting to pier's receiver and reading
 * the receipt (`postForReceipt`), and answering pier's sender (`startOpensslPeer`).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Test } from 'tap';
import { parseEntity } from '../../actors/as2/mime/parse.js';
import { as2Headers } from './as2.js';
import type { Fixtures } from './certificates.js';
import type { Message } from './flow.js';
import { headerOf, startPeer, type PeerRequest } from './http-peer.js';

/** An HTTP message as an S/MIME file openssl reads: the headers, a blank line, the body. */
export function asMessage(headers: Record<string, string>, body: Buffer): Buffer {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return Buffer.concat([Buffer.from(`${lines.join('')}\r\n`), body]);
}

/**
 * openssl's S/MIME output split into the headers and body an AS2 receiver gets over HTTP.
 * With `binary`, a base64 body (openssl's enveloped output) is sent decoded, as AS2 partners
 * send it (RFC 4130 §5.2: binary transfer over HTTP).
 */
export function asHttp(
  message: Buffer,
  options: { binary?: boolean } = {},
): { headers: Record<string, string>; body: Buffer } {
  const entity = parseEntity(message);
  const headers: Record<string, string> = {};
  for (const f of entity.headers.fields) headers[f.name] = f.value;
  const encoding = Object.entries(headers).find(([n]) => n.toLowerCase() === 'content-transfer-encoding');
  if (options.binary && encoding && encoding[1].trim().toLowerCase() === 'base64') {
    delete headers[encoding[0]];
    return { headers, body: Buffer.from(entity.body.toString('latin1'), 'base64') };
  }
  return { headers, body: entity.body };
}

/**
 * The first part of a multipart/signed message byte for byte, found by the boundary alone
 * (RFC 2046: the line break before a delimiter belongs to the delimiter). This is the entity
 * the signature and the MIC cover.
 */
export function signedPart(message: Buffer, contentType: string): Buffer {
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (!boundary) throw new Error(`no boundary in ${contentType}`);
  const delimiter = `--${boundary}`;
  const atStart = message.subarray(0, delimiter.length).toString('latin1') === delimiter;
  const opening = atStart ? 0 : message.indexOf(`\n${delimiter}`) + 1;
  if (!atStart && opening === 0) throw new Error(`no part delimited by ${boundary}`);
  const start = message.indexOf('\n', opening) + 1;
  let end = message.indexOf(`\n${delimiter}`, start);
  if (end < 0) throw new Error(`the part delimited by ${boundary} does not end`);
  // The CR goes with the delimiter only when the delimiter lines end in CRLF: openssl frames
  // with bare LFs, and then a CR before the LF is the part's own last byte.
  if (message[start - 2] === 0x0d && message[end - 1] === 0x0d) end -= 1;
  return message.subarray(start, end);
}

/** Writes a file in the fixture directory. */
export function writeFixture(fixtures: Fixtures, name: string, bytes: Buffer | string): void {
  writeFileSync(path.join(fixtures.dir, name), bytes);
}

/**
 * openssl verifies a multipart/signed message against `signerCert` (a file in the fixture
 * directory) and answers the signed part. openssl's S/MIME reader rebuilds lines, so the
 * signature is taken out with `-cmsout` and verified with `-binary -content` over the part's
 * exact bytes. Throws when openssl refuses.
 */
export function opensslVerifies(
  fixtures: Fixtures,
  message: Buffer,
  contentType: string,
  signerCert: string,
): Buffer {
  const part = signedPart(message, contentType);
  writeFixture(fixtures, 'signed.eml', message);
  writeFixture(fixtures, 'signed-part.bin', part);
  fixtures.openssl('cms -cmsout -in signed.eml -outform DER -out signature.der');
  fixtures.openssl(
    `cms -verify -binary -inform DER -in signature.der -content signed-part.bin -CAfile ${signerCert} -purpose any -out verified.out`,
  );
  if (!fixtures.read('verified.out').equals(part)) throw new Error('openssl returned other content');
  return part;
}

/** `openssl dgst` of a file in the fixture directory, base64 as in Received-Content-MIC. */
export function opensslDigest(fixtures: Fixtures, digest: string, file: string): string {
  fixtures.openssl(`dgst -${digest} -binary -out digest.bin ${file}`);
  return fixtures.read('digest.bin').toString('base64');
}

/**
 * The RFC 5751 name (micalg, Received-Content-MIC) of an openssl digest: sha256 → sha-256;
 * SHA-3 names are the same in both.
 */
export function micalgOf(md: string): string {
  return md.startsWith('sha3-') ? md : md.replace('sha', 'sha-');
}

/** The Received-Content-MIC of a file among the fixtures: its `openssl dgst` by `md`, and md's name. */
export function opensslMic(fixtures: Fixtures, md: string, file: string): string {
  return `${opensslDigest(fixtures, md, file)}, ${micalgOf(md)}`;
}

/**
 * The multipart/report of a receipt as another implementation writes it for alice: `text` for a
 * person, then the disposition notification for `messageId` with `disposition` and `fields`.
 */
export function receiptReport(report: {
  text: string;
  ua: string;
  messageId: string;
  disposition: string;
  fields?: string[];
}): string {
  return [
    'Content-Type: multipart/report; report-type=disposition-notification; boundary="report-1"',
    '',
    '--report-1',
    'Content-Type: text/plain',
    '',
    report.text,
    '--report-1',
    'Content-Type: message/disposition-notification',
    '',
    `Reporting-UA: ${report.ua}`,
    'Original-Recipient: rfc822; ALICE',
    'Final-Recipient: rfc822; ALICE',
    `Original-Message-ID: ${report.messageId}`,
    `Disposition: ${report.disposition}`,
    ...(report.fields ?? []),
    '',
    '--report-1--',
    '',
  ].join('\r\n');
}

/**
 * A partner's synchronous receipt made by `openssl cms -sign`: a processed disposition with
 * `mic` for `messageId`, signed by `signer` (`<signer>.crt` and `.key` among the fixtures) with
 * digest `md`, as the HTTP answer parts a test peer returns.
 */
export function opensslReceipt(
  fixtures: Fixtures,
  receipt: { messageId: string; mic: string; signer: string; md: string },
): { headers: Record<string, string>; body: Buffer } {
  const report = [
    'Content-Type: multipart/report; report-type=disposition-notification; boundary="r"',
    '',
    '--r',
    'Content-Type: message/disposition-notification',
    '',
    `Original-Message-ID: ${receipt.messageId}`,
    'Disposition: automatic-action/MDN-sent-automatically; processed',
    `Received-Content-MIC: ${receipt.mic}`,
    '',
    '--r--',
    '',
  ].join('\r\n');
  writeFixture(fixtures, 'report.mime', report);
  fixtures.openssl(
    `cms -sign -binary -in report.mime -signer ${receipt.signer}.crt -inkey ${receipt.signer}.key -md ${receipt.md} -out receipt.eml`,
  );
  return asHttp(fixtures.read('receipt.eml'));
}

/**
 * The signed receipt in a receiver's HTTP answer, verified by `openssl cms -verify` against
 * `caFile` (a certificate among the fixtures); answers its text (the disposition and the MIC).
 * The receipt stays in `mdn.eml` for further openssl commands. Throws when openssl refuses.
 */
export async function opensslReadsReceipt(
  fixtures: Fixtures,
  answer: Response,
  caFile: string,
): Promise<string> {
  const contentType = answer.headers.get('content-type') ?? '';
  writeFixture(
    fixtures,
    'mdn.eml',
    asMessage({ 'Content-Type': contentType }, Buffer.from(await answer.arrayBuffer())),
  );
  fixtures.openssl(`cms -verify -in mdn.eml -CAfile ${caFile} -purpose any -out report.txt`);
  return fixtures.read('report.txt').toString('latin1');
}

/**
 * Posts an AS2 message from partner `from` to bob's receiver at `url`, asking a receipt signed
 * with `micalg` (`headers` add or win); answers the HTTP status and the receipt's text as
 * `opensslReadsReceipt` verified it against `receiptCert`.
 */
export async function postForReceipt(
  fixtures: Fixtures,
  url: string,
  receiptCert: string,
  message: { from: string; id: string; micalg?: string; headers: Record<string, string>; body: Buffer },
): Promise<{ status: number; report: string }> {
  const answer = await fetch(url, {
    method: 'POST',
    headers: { ...as2Headers(message.from, message.id, message.micalg), ...message.headers },
    body: new Uint8Array(message.body),
  });
  return { status: answer.status, report: await opensslReadsReceipt(fixtures, answer, receiptCert) };
}

/** The disposition line of a receipt for a message processed without error. */
const processedDisposition = /Disposition: automatic-action\/MDN-sent-automatically; processed\r?\n/;

/** What `postForReceipt` answered is a 200 with a processed receipt carrying `mic` ("<base64>, <micalg>"). */
export function receiptProcessed(t: Test, posted: { status: number; report: string }, mic: string): void {
  t.equal(posted.status, 200);
  t.match(posted.report, processedDisposition);
  t.match(posted.report, `Received-Content-MIC: ${mic}`);
}

/** The Content-Type of a MIME entity, its folded lines joined. */
function contentTypeOf(entity: Buffer): string {
  const head = entity.subarray(0, entity.indexOf('\r\n\r\n')).toString('latin1');
  const field = /^Content-Type:\s*((?:.|\r\n[ \t])*)/im.exec(head);
  if (!field) throw new Error(`no Content-Type in ${head}`);
  return field[1]!.replace(/\r\n[ \t]/g, ' ');
}

/** What an openssl peer read from one message: the MIC it computed, and what the test's `open` noted. */
export type PeerReading<Noted> = Noted & { mic: string };

/** The peer `startOpensslPeer` started. */
export interface OpensslPeer<Noted> {
  /** http://127.0.0.1:<port>/as2 */
  url: string;
  /**
   * Asserts that the message pier sent was delivered with a signed receipt that verified, and
   * that the peer read it (`read` says how) with the MIC pier recorded; answers the peer's
   * reading for the test's own checks.
   */
  deliveredAndRead(t: Test, sent: Message, read: string): PeerReading<Noted> | undefined;
}

/**
 * A trading partner's AS2 endpoint played with openssl, for pier's sender: `open` takes the
 * request's envelope off (decrypting it, for instance, with `key`, the partner's key for the
 * request's AS2-To among the fixtures) and answers the multipart/signed entity inside with what
 * the test notes of it; openssl verifies that against `signerCert`, computes the MIC with the
 * digest its micalg names, and answers with a receipt signed by `key` with `receiptMd`.
 */
export async function startOpensslPeer<Noted extends object>(
  t: Test,
  fixtures: Fixtures,
  peer: {
    signerCert: string;
    /** The partner's key (`<key>.crt`, `.key` among the fixtures) by the AS2-To it is for. */
    keys: Record<string, string>;
    open: (request: PeerRequest, key: string) => { entity: Buffer; noted: Noted };
    receiptMd: string;
  },
): Promise<OpensslPeer<Noted>> {
  /** What the peer read from each message, by Message-ID. */
  const seen = new Map<string, PeerReading<Noted>>();
  const started = await startPeer(t, (request, index) => {
    const messageId = headerOf(request, 'message-id')!;
    const key = peer.keys[headerOf(request, 'as2-to')!]!;
    const { entity, noted } = peer.open(request, key);
    const contentType = contentTypeOf(entity);
    opensslVerifies(fixtures, entity, contentType, peer.signerCert);
    const micalg = /micalg="?([\w-]+)/i.exec(contentType)![1]!.toLowerCase();
    // openssl's name of the digest micalg names: sha-256 → sha256, SHA-3 names as they are.
    const mic = opensslMic(
      fixtures,
      micalg.startsWith('sha3-') ? micalg : micalg.replace('-', ''),
      'signed-part.bin',
    );
    seen.set(messageId, { ...noted, mic });
    const mdn = opensslReceipt(fixtures, { messageId, mic, signer: key, md: peer.receiptMd });
    return {
      status: 200,
      headers: { 'Message-ID': `<r${index}@peer.example>`, ...mdn.headers },
      body: mdn.body,
    };
  });
  return {
    url: started.url,
    deliveredAndRead(t, sent, read) {
      t.equal(sent.status, 'Delivered', sent.deliveries[0]?.last_error);
      const reading = seen.get(sent.protocols.as2.message_id);
      t.ok(reading, read);
      t.equal(sent.protocols.as2.mic, reading?.mic, 'the same MIC on both sides');
      t.match(sent.protocols.as2.mdn, { signed: true, verified: true });
      return reading;
    },
  };
}
