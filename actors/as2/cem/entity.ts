/**
 * An outbound CEM message is kept as its MIME entity (Content-Type header, blank line, body),
 * so the AS2 sender can send it with its own Content-Type: a claimed delivery carries no media
 * type, and adding one to every claim would cost every message for the few CEM ones
 * (docs/decisions/cem-message-format.md). A business document does not start with these bytes.
 */
import { cemXmlType } from './vocabulary.js';

export interface CemEntity {
  contentType: string;
  body: Buffer;
}

const prefix = Buffer.from(
  'Content-Type: multipart/related; type="application/ediint-cert-exchange+xml"',
  'latin1',
);

/** The entity's Content-Type and body when `payload` is a CEM entity pier built; else null. */
export function cemEntityOf(payload: Buffer): CemEntity | null {
  if (payload.length < prefix.length || !payload.subarray(0, prefix.length).equals(prefix)) return null;
  const end = payload.indexOf('\r\n\r\n');
  if (end === -1) return null;
  const contentType = payload.toString('latin1', 'Content-Type: '.length, end);
  if (/[\r\n]/.test(contentType) || !contentType.includes(cemXmlType)) return null;
  return { contentType, body: payload.subarray(end + 4) };
}
