/**
 * The certificate reader (nodes in node.ts): a small BER/DER reader that keeps byte offsets. Certificates found inside PKCS#7 and
 * PKCS#12 files are sliced out exactly as they were signed: re-encoding a parsed tree (as
 * node-forge does) risks changing a byte, and with it the fingerprint and the signature.
 */
import {
  Asn1Error,
  Asn1Node,
  maxDepth,
  readHeader,
  tagClasses,
  type HeaderWords,
  type Word,
} from './node.js';

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

export { Asn1Error, tagClasses };

/** One element: where it sits in `source`, and its content (the node type of node.ts). */
export type Tlv = Asn1Node;

/** The certificate reader's words: operators read them in upload answers. */
const middle: Word = ['The data ends in the middle of an element', true];
const words: HeaderWords = {
  noValue: middle,
  tagTruncated: middle,
  tagTooLarge: ['ASN.1 tag number is too large', false],
  noLength: middle,
  indefinitePrimitive: ['Indefinite length on a primitive element', false],
  lengthTooLarge: ['ASN.1 length is too large', false],
  lengthTruncated: middle,
};

/**
 * One element at `offset`; its children are read when asked for (children()), each bounded by
 * the end of `source` rather than by this element.
 */
export function readTlv(source: Buffer, offset = 0, depth = 0): Tlv {
  if (depth > maxDepth) throw new Asn1Error('ASN.1 nesting is too deep');
  const header = readHeader(source, offset, source.length, words);
  const { tagClass, constructed, tag, contentStart } = header;
  if (header.length === null) {
    let cursor = contentStart;
    for (;;) {
      if (cursor + 2 > source.length) throw new Asn1Error('The data ends before its end marker', true);
      if (source[cursor] === 0 && source[cursor + 1] === 0) break;
      cursor = readTlv(source, cursor, depth + 1).end;
    }
    return new Asn1Node(
      source,
      offset,
      contentStart,
      cursor,
      cursor + 2,
      tagClass,
      constructed,
      tag,
      readChildren,
    );
  }
  const contentEnd = contentStart + header.length;
  if (contentEnd > source.length) {
    throw new Asn1Error(
      `The data is cut short: an element needs ${contentEnd - source.length} more bytes than the file has`,
      true,
    );
  }
  return new Asn1Node(
    source,
    offset,
    contentStart,
    contentEnd,
    contentEnd,
    tagClass,
    constructed,
    tag,
    readChildren,
  );
}

/** The elements inside a constructed one, read afresh from its content (depth starts again). */
function readChildren(tlv: Tlv): Tlv[] {
  if (!tlv.constructed) throw new Asn1Error('Expected a constructed element');
  const out: Tlv[] = [];
  for (let pos = tlv.contentStart; pos < tlv.contentEnd;) {
    const child = readTlv(tlv.source, pos);
    out.push(child);
    pos = child.end;
  }
  return out;
}

/** Reads one element that must fill `source` exactly. */
export function readWhole(source: Buffer): Tlv {
  const tlv = readTlv(source);
  if (tlv.end !== source.length) throw new Asn1Error('Unexpected bytes after the end of the data');
  return tlv;
}

export function children(tlv: Tlv): Tlv[] {
  return [...tlv.children];
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
