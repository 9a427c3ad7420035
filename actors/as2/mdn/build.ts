/**
 * Building an AS2 receipt (RFC 4130 §7.4, RFC 8098 §3): multipart/report with a human-readable
 * part and a message/disposition-notification part, signed as multipart/signed when the
 * partner asked for a signed receipt.
 */
import { buildEntity, buildMultipartBody, joinChunks, newBoundary, type Chunks } from '../mime/build.js';
import { MimeError } from '../mime/headers.js';
import { formatMic, type Mic } from '../mic.js';
import { buildSignedEntity, type SignedEntityOptions } from '../smime/signed.js';
import { formatDisposition, type Disposition } from '../vocabulary/dispositions.js';

export interface MdnFields {
  /** `Reporting-UA`, e.g. `pier` or `pier/1.2.0` (identification rules are the caller's). */
  reportingUa: string;
  /** AS2-To of the original message (RFC 4130 §7.4.3: `rfc822; <AS2 name>`). */
  originalRecipient: string;
  finalRecipient: string;
  /** Message-ID of the original message, angle brackets included. */
  originalMessageId: string;
  disposition: Disposition;
  mic?: Mic | null;
  /** How to spell the MIC algorithm: a style, or the exact name the partner asked for. */
  micSpelling?: string;
  /** The human-readable part. */
  text: string;
}

export interface BuiltMdn {
  /** The HTTP body (synchronous receipt) or the body of the asynchronous receipt request. */
  body: Buffer;
  contentType: string;
  /** Headers describing the body: MIME-Version and Content-Type. AS2 headers are the actor's. */
  headers: Record<string, string>;
  signed: boolean;
}

function field(name: string, value: string): string {
  if (/[\r\n]/.test(value)) throw new MimeError(`MDN field ${name} contains a line break`);
  return `${name}: ${value}\r\n`;
}

/** The disposition-notification fields (RFC 8098 §3.1), CRLF lines. */
function dispositionNotificationBody(fields: MdnFields): Buffer {
  let text = field('Reporting-UA', fields.reportingUa);
  text += field('Original-Recipient', `rfc822; ${fields.originalRecipient}`);
  text += field('Final-Recipient', `rfc822; ${fields.finalRecipient}`);
  text += field('Original-Message-ID', fields.originalMessageId);
  text += field('Disposition', formatDisposition(fields.disposition));
  if (fields.mic) text += field('Received-Content-MIC', formatMic(fields.mic, fields.micSpelling));
  return Buffer.from(text, 'utf8');
}

/** The multipart/report entity's Content-Type and body. */
export function buildReport(fields: MdnFields): { contentType: string; body: Chunks } {
  const boundary = newBoundary();
  const ascii = /^[\t\n\r\x20-\x7e]*$/.test(fields.text);
  const human = buildEntity(
    [
      ['Content-Type', `text/plain; charset=${ascii ? 'us-ascii' : 'utf-8'}`],
      ['Content-Transfer-Encoding', ascii ? '7bit' : '8bit'],
    ],
    Buffer.from(fields.text.replace(/\r?\n/g, '\r\n'), 'utf8'),
  );
  const notification = buildEntity(
    [
      ['Content-Type', 'message/disposition-notification'],
      ['Content-Transfer-Encoding', '7bit'],
    ],
    dispositionNotificationBody(fields),
  );
  return {
    contentType: `multipart/report; report-type=disposition-notification; boundary="${boundary}"`,
    body: buildMultipartBody(boundary, [human, notification]),
  };
}

/** A receipt, signed when `sign` is given (the partner's `signed-receipt-protocol`). */
export function buildMdn(fields: MdnFields, sign?: SignedEntityOptions | null): BuiltMdn {
  const report = buildReport(fields);
  if (!sign) {
    return {
      body: joinChunks(report.body),
      contentType: report.contentType,
      headers: { 'MIME-Version': '1.0', 'Content-Type': report.contentType },
      signed: false,
    };
  }
  const signed = buildSignedEntity(buildEntity([['Content-Type', report.contentType]], report.body), sign);
  return {
    body: joinChunks(signed.body),
    contentType: signed.contentType,
    headers: { 'MIME-Version': '1.0', 'Content-Type': signed.contentType },
    signed: true,
  };
}
