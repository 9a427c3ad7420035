/**
 * A small BER/DER reader that keeps byte offsets. Certificates found inside PKCS#7 and
 * PKCS#12 files are sliced out exactly as they were signed: re-encoding a parsed tree (as
 * node-forge does) risks changing a byte, and with it the fingerprint and the signature.
 */

export const tags = {
  boolean: 0x01,
  integer: 0x02,
  bitString: 0x03,
  octetString: 0x04,
  null: 0x05,
  oid: 0x06,
  utf8String: 0x0c,
  printableString: 0x13,
  t61String: 0x14,
  ia5String: 0x16,
  utcTime: 0x17,
  generalizedTime: 0x18,
  universalString: 0x1c,
  bmpString: 0x1e,
  sequence: 0x10,
  set: 0x11,
} as const;

export const tagClasses = { universal: 0, application: 1, context: 2, private: 3 } as const;

/** One element: where it sits in `source`, and its content. */
export interface Tlv {
  source: Buffer;
  tagClass: number;
  constructed: boolean;
  tag: number;
  /** Offset of the first header byte. */
  start: number;
  /** Offset of the first content byte. */
  contentStart: number;
  /** Offset after the content (for an indefinite length: before the end-of-contents octets). */
  contentEnd: number;
  /** Offset after the whole element, end-of-contents octets included. */
  end: number;
}

/** Why bytes are not the ASN.1 expected; `truncated` tells a cut-off file from a damaged one. */
export class Asn1Error extends Error {
  constructor(
    message: string,
    readonly truncated = false,
  ) {
    super(message);
    this.name = 'Asn1Error';
  }
}

/** Deep enough for every structure here; deeper nesting is hostile input. */
const maxDepth = 48;

export function readTlv(source: Buffer, offset = 0, depth = 0): Tlv {
  if (depth > maxDepth) throw new Asn1Error('ASN.1 nesting is too deep');
  let pos = offset;
  const byte = () => {
    if (pos >= source.length) throw new Asn1Error('The data ends in the middle of an element', true);
    return source[pos++]!;
  };
  const first = byte();
  const tagClass = first >> 6;
  const constructed = (first & 0x20) !== 0;
  let tag = first & 0x1f;
  if (tag === 0x1f) {
    tag = 0;
    for (let b = byte(), n = 0; ; b = byte(), n++) {
      if (n > 3) throw new Asn1Error('ASN.1 tag number is too large');
      tag = (tag << 7) | (b & 0x7f);
      if ((b & 0x80) === 0) break;
    }
  }
  const lengthByte = byte();
  if (lengthByte === 0x80) {
    if (!constructed) throw new Asn1Error('Indefinite length on a primitive element');
    const contentStart = pos;
    let cursor = contentStart;
    for (;;) {
      if (cursor + 2 > source.length) throw new Asn1Error('The data ends before its end marker', true);
      if (source[cursor] === 0 && source[cursor + 1] === 0) break;
      cursor = readTlv(source, cursor, depth + 1).end;
    }
    return {
      source,
      tagClass,
      constructed,
      tag,
      start: offset,
      contentStart,
      contentEnd: cursor,
      end: cursor + 2,
    };
  }
  let length = lengthByte;
  if (lengthByte & 0x80) {
    const count = lengthByte & 0x7f;
    if (count > 4) throw new Asn1Error('ASN.1 length is too large');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + byte();
  }
  const contentStart = pos;
  const contentEnd = contentStart + length;
  if (contentEnd > source.length) {
    throw new Asn1Error(
      `The data is cut short: an element needs ${contentEnd - source.length} more bytes than the file has`,
      true,
    );
  }
  return { source, tagClass, constructed, tag, start: offset, contentStart, contentEnd, end: contentEnd };
}

/** Reads one element that must fill `source` exactly. */
export function readWhole(source: Buffer): Tlv {
  const tlv = readTlv(source);
  if (tlv.end !== source.length) throw new Asn1Error('Unexpected bytes after the end of the data');
  return tlv;
}

export function children(tlv: Tlv): Tlv[] {
  if (!tlv.constructed) throw new Asn1Error('Expected a constructed element');
  const out: Tlv[] = [];
  for (let pos = tlv.contentStart; pos < tlv.contentEnd;) {
    const child = readTlv(tlv.source, pos);
    out.push(child);
    pos = child.end;
  }
  return out;
}

/** The whole element's bytes (header and content). */
export function bytesOf(tlv: Tlv): Buffer {
  return tlv.source.subarray(tlv.start, tlv.end);
}

export function contentOf(tlv: Tlv): Buffer {
  return tlv.source.subarray(tlv.contentStart, tlv.contentEnd);
}

export function is(tlv: Tlv | undefined, tag: number, tagClass: number = tagClasses.universal): tlv is Tlv {
  return tlv !== undefined && tlv.tag === tag && tlv.tagClass === tagClass;
}

/** An OCTET STRING's value; BER may split it into constructed chunks. */
export function octets(tlv: Tlv): Buffer {
  if (!tlv.constructed) return contentOf(tlv);
  return Buffer.concat(children(tlv).map(octets));
}

export function oidOf(tlv: Tlv): string {
  if (!is(tlv, tags.oid)) throw new Asn1Error('Expected an object identifier');
  const bytes = contentOf(tlv);
  const parts: number[] = [];
  let value = 0;
  for (const b of bytes) {
    value = value * 128 + (b & 0x7f);
    if ((b & 0x80) === 0) {
      if (parts.length === 0) {
        const first = value < 80 ? Math.floor(value / 40) : 2;
        parts.push(first, value - first * 40);
      } else parts.push(value);
      value = 0;
    }
  }
  return parts.join('.');
}

/** A small non-negative INTEGER (versions, iteration counts). */
export function smallInteger(tlv: Tlv): number {
  if (!is(tlv, tags.integer)) throw new Asn1Error('Expected an integer');
  const bytes = contentOf(tlv);
  if (bytes.length > 6) throw new Asn1Error('Integer is too large');
  return bytes.reduce((n, b) => n * 256 + b, 0);
}

/** Text of the ASN.1 string types used in names. */
export function stringOf(tlv: Tlv): string {
  const bytes = contentOf(tlv);
  switch (tlv.tag) {
    case tags.bmpString:
      return Buffer.from(bytes.subarray(0, bytes.length & ~1))
        .swap16()
        .toString('utf16le');
    case tags.universalString: {
      let text = '';
      for (let i = 0; i + 3 < bytes.length; i += 4) text += String.fromCodePoint(bytes.readUInt32BE(i));
      return text;
    }
    case tags.t61String:
      return bytes.toString('latin1');
    default:
      return bytes.toString('utf8');
  }
}
