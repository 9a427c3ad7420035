/**
 * Moving AS2 messages between HTTP and the S/MIME files the `openssl cms` command reads and
 * writes, and checking signatures with openssl: the independent implementation of the tests.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseEntity } from '../../actors/as2/mime/parse.js';
import type { Fixtures } from './certificates.js';

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
