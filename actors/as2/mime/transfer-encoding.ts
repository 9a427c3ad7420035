/**
 * Content-Transfer-Encoding (RFC 2045 §6): binary, 7bit and 8bit pass through; base64 and
 * quoted-printable are decoded. Encoding writes base64 in 76-character CRLF lines.
 */
import { MimeError } from './headers.js';

export type { TransferEncoding } from '../../../protocol/as2/interop-presets.js';

export function decodeTransferEncoding(body: Buffer, encoding: string): Buffer {
  switch (encoding) {
    case 'binary':
    case '7bit':
    case '8bit':
    case '':
      return body;
    case 'base64':
      return decodeBase64(body);
    case 'quoted-printable':
      return decodeQuotedPrintable(body);
    default:
      throw new MimeError(`unknown Content-Transfer-Encoding ${JSON.stringify(encoding.slice(0, 40))}`);
  }
}

/** Base64 with line breaks and blanks anywhere; anything else is refused rather than skipped. */
export function decodeBase64(body: Buffer): Buffer {
  const text = body.toString('latin1').replace(/[\r\n\t ]+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new MimeError('invalid base64 content');
  return Buffer.from(text, 'base64');
}

export function encodeBase64Lines(bytes: Buffer): Buffer {
  const text = bytes.toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < text.length; i += 76) lines.push(text.slice(i, i + 76));
  return Buffer.from(lines.join('\r\n'), 'latin1');
}

export function decodeQuotedPrintable(body: Buffer): Buffer {
  const out = Buffer.alloc(body.length);
  let n = 0;
  for (let i = 0; i < body.length; i++) {
    const b = body[i]!;
    if (b !== 0x3d) {
      out[n++] = b;
      continue;
    }
    // "=" then CRLF or LF (soft line break, possibly after blanks) or two hex digits.
    let j = i + 1;
    while (body[j] === 0x20 || body[j] === 0x09) j++;
    if (body[j] === 0x0d && body[j + 1] === 0x0a) {
      i = j + 1;
      continue;
    }
    if (body[j] === 0x0a) {
      i = j;
      continue;
    }
    const hex = body.toString('latin1', i + 1, i + 3);
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      out[n++] = parseInt(hex, 16);
      i += 2;
    } else out[n++] = b; // a lone "=" is kept, as RFC 2045 §6.7 suggests for robustness
  }
  return out.subarray(0, n);
}
