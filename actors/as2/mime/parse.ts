/**
 * Parsing MIME entities on Buffers, byte-exactly: every part is a view of the input, so a
 * signature is checked over the bytes as received. Lines may end in CRLF or, as RSSBus/CData
 * send them, in LF alone.
 */
import type { Headers } from './headers.js';
import { MimeError, headerLimits, parseHeaderSection } from './headers.js';
import { parseStructuredValue, latin1TextAsUtf8, type StructuredValue } from './parameters.js';

export interface MimeEntity {
  headers: Headers;
  body: Buffer;
  /** The whole entity as received: header section, blank line and body. */
  raw: Buffer;
}

/** Splits an entity at its first empty line (CRLF CRLF, LF LF or a mix). */
export function parseEntity(bytes: Buffer): MimeEntity {
  let lineStart = 0;
  const limit = Math.min(bytes.length, headerLimits.maxSectionBytes + 4);
  while (lineStart < bytes.length) {
    const lf = bytes.indexOf(0x0a, lineStart);
    const lineEnd = lf === -1 ? bytes.length : lf;
    const contentEnd = lineEnd > lineStart && bytes[lineEnd - 1] === 0x0d ? lineEnd - 1 : lineEnd;
    if (contentEnd === lineStart) {
      const headers = parseHeaderSection(bytes.toString('latin1', 0, lineStart));
      return { headers, body: bytes.subarray(Math.min(lineEnd + 1, bytes.length)), raw: bytes };
    }
    if (lf === -1) break;
    lineStart = lf + 1;
    if (lineStart > limit)
      throw new MimeError(`no end of the header section within ${headerLimits.maxSectionBytes} bytes`);
  }
  // Headers without a body (no blank line at all).
  return {
    headers: parseHeaderSection(bytes.toString('latin1')),
    body: bytes.subarray(bytes.length),
    raw: bytes,
  };
}

export interface Multipart {
  /** Each part as an entity view (its headers and body, without the delimiter lines). */
  parts: Buffer[];
  preamble: Buffer;
}

/** Most a multipart body may hold; AS2 uses two (signed) or two to three (report). */
const maxParts = 32;

/**
 * Splits a multipart body at its boundary (RFC 2046 §5.1.1). The line break before each
 * delimiter belongs to the delimiter, whether it is CRLF or a bare LF. Which one is told by how
 * the first delimiter line ends: a body framed with bare LFs (openssl's own output, RSSBus) has
 * only the LF taken, so a binary part ending in a CR byte keeps it. A body without its close
 * delimiter is truncated and refused.
 */
export function parseMultipart(body: Buffer, boundary: string): Multipart {
  if (!boundary || boundary.length > 200) throw new MimeError('missing or oversized multipart boundary');
  const dash = Buffer.from(`--${boundary}`, 'latin1');
  const parts: Buffer[] = [];
  let preamble: Buffer | null = null;
  let partStart = -1;
  let search = 0;
  let lfFramed: boolean | null = null;
  for (;;) {
    const at = body.indexOf(dash, search);
    if (at === -1) throw new MimeError('multipart body ends without its close delimiter (truncated?)');
    search = at + dash.length;
    if (at > 0 && body[at - 1] !== 0x0a) continue; // not at the start of a line
    const after = at + dash.length;
    const isClose = body[after] === 0x2d && body[after + 1] === 0x2d;
    let lineEnd = isClose ? after + 2 : after;
    while (body[lineEnd] === 0x20 || body[lineEnd] === 0x09) lineEnd++; // transport padding
    if (!isClose && lineEnd < body.length && body[lineEnd] !== 0x0d && body[lineEnd] !== 0x0a) continue; // longer boundary
    if (lfFramed === null && !isClose) lfFramed = body[lineEnd] === 0x0a;
    const breakBefore = at === 0 ? 0 : body[at - 2] === 0x0d && !lfFramed ? 2 : 1;
    const contentEnd = Math.max(at - breakBefore, partStart < 0 ? 0 : partStart);
    if (partStart < 0) preamble = body.subarray(0, contentEnd);
    else {
      parts.push(body.subarray(partStart, contentEnd));
      if (parts.length > maxParts) throw new MimeError(`more than ${maxParts} parts`);
    }
    if (isClose) break;
    if (body[lineEnd] === 0x0d) lineEnd++;
    if (body[lineEnd] === 0x0a) lineEnd++;
    partStart = lineEnd;
    search = lineEnd;
  }
  return { parts, preamble: preamble ?? body.subarray(0, 0) };
}

/** Content-Type as type/subtype and parameters; RFC 2045's default when it is missing. */
export function contentTypeOf(headers: Headers): StructuredValue {
  const header = headers.get('content-type');
  return header ? parseStructuredValue(header) : { value: 'text/plain', params: new Map() };
}

/** Lower-cased Content-Transfer-Encoding; `binary` when missing (AS2 runs over HTTP, RFC 4130 §5.2). */
export function transferEncodingOf(headers: Headers): string {
  return (headers.get('content-transfer-encoding') ?? 'binary').trim().toLowerCase();
}

/** The filename a partner gave: Content-Disposition filename (RFC 2231 or plain), else Content-Type name. */
export function filenameOf(headers: Headers): string | null {
  const disposition = headers.get('content-disposition');
  const fromDisposition = disposition ? parseStructuredValue(disposition).params.get('filename') : undefined;
  const name = fromDisposition ?? contentTypeOf(headers).params.get('name');
  return name ? latin1TextAsUtf8(name) : null;
}
