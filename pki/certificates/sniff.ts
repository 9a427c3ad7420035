/**
 * Recognising what kind of bytes an upload holds before parsing them, so that a wrong file
 * (an image, an archive, a CSR) is refused with a sentence that tells the operator what to do.
 */
import { children, is, readTlv, tagClasses, tags, type Tlv } from '../asn1/tlv.js';

const magic: { bytes: number[]; what: string }[] = [
  { bytes: [0x89, 0x50, 0x4e, 0x47], what: 'a PNG image' },
  { bytes: [0xff, 0xd8, 0xff], what: 'a JPEG image' },
  { bytes: [0x47, 0x49, 0x46, 0x38], what: 'a GIF image' },
  { bytes: [0x25, 0x50, 0x44, 0x46], what: 'a PDF document' },
  {
    bytes: [0x50, 0x4b, 0x03, 0x04],
    what: 'a ZIP archive; unpack it and upload the certificate files it holds',
  },
  { bytes: [0x1f, 0x8b], what: 'a gzip archive; unpack it and upload the certificate files it holds' },
  { bytes: [0xd0, 0xcf, 0x11, 0xe0], what: 'a Microsoft Office document' },
];

/** "a PNG image" and the like, when the bytes start like a well-known non-certificate format. */
export function knownOtherFormat(bytes: Buffer): string | undefined {
  return magic.find((m) => m.bytes.every((b, i) => bytes[i] === b))?.what;
}

/** Text of an upload: UTF-8 (BOM dropped) or UTF-16 with a BOM, as Windows tools write it. */
export function asText(bytes: Buffer): string | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return bytes.subarray(2).toString('utf16le');
  if (bytes[0] === 0xfe && bytes[1] === 0xff)
    return Buffer.from(bytes.subarray(2)).swap16().toString('utf16le');
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const head = bytes.subarray(start, start + 4096);
  if (head.includes(0)) return undefined;
  return bytes.subarray(start).toString('utf8');
}

/** Base64 without PEM armour, as some partners paste it; decoded when it decodes to DER. */
export function bareBase64(text: string): Buffer | undefined {
  const compact = text.replace(/\s+/g, '');
  if (compact.length < 64 || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) return undefined;
  const bytes = Buffer.from(compact, 'base64');
  return bytes[0] === 0x30 ? bytes : undefined;
}

export type DerShape = 'certificate' | 'csr' | 'public-key' | 'other';

/** Certificate and CSR share an outer shape; the second field of the signed part tells them apart. */
export function derShape(top: Tlv): DerShape {
  if (!is(top, tags.sequence)) return 'other';
  const parts = children(top);
  const [first, second, third] = parts;
  if (parts.length === 2 && is(first, tags.sequence) && is(second, tags.bitString)) return 'public-key';
  if (
    parts.length !== 3 ||
    !is(first, tags.sequence) ||
    !is(second, tags.sequence) ||
    !is(third, tags.bitString)
  ) {
    return 'other';
  }
  const fields = children(first);
  const base = fields[0]?.tagClass === tagClasses.context && fields[0].tag === 0 ? 1 : 0;
  const candidate = fields[base + 1];
  if (!candidate || !is(candidate, tags.sequence)) return 'other';
  if (candidate.contentStart === candidate.contentEnd) return 'csr'; // an empty Name
  const inner = readTlv(candidate.source, candidate.contentStart);
  // TBSCertificate: serial, then AlgorithmIdentifier (starts with an OID).
  // CertificationRequestInfo: version, then Name (starts with a SET).
  if (is(inner, tags.oid)) return 'certificate';
  if (is(inner, tags.set)) return 'csr';
  return 'other';
}
