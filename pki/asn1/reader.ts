/**
 * The CMS reader (nodes in node.ts): a BER reader over Buffers. CMS arrives as BER: OpenSSL, BouncyCastle and Java stream it with
 * indefinite lengths and chunked OCTET STRINGs. Nodes are views into the input (nothing is
 * copied), and `raw` is the exact encoding as received, which signed-attribute checks need.
 * node-forge's reader works on binary strings and re-encodes; this one keeps bytes as they are.
 */
import { Asn1Error, Asn1Node, maxDepth, readHeader, type HeaderWords } from './node.js';

export { Asn1Error, Asn1Node };

export const universalTag = {
  boolean: 1,
  integer: 2,
  bitString: 3,
  octetString: 4,
  null: 5,
  oid: 6,
  utf8String: 12,
  sequence: 16,
  set: 17,
  printableString: 19,
  utcTime: 23,
  generalizedTime: 24,
} as const;

/** The CMS reader's words (they end up in logs and in the operator's view of a refusal). */
const words: HeaderWords = {
  noValue: ['truncated: expected a value', false],
  tagTruncated: ['truncated or oversized tag', false],
  tagTooLarge: ['truncated or oversized tag', false],
  noLength: ['truncated: expected a length', false],
  indefinitePrimitive: ['indefinite length on a primitive value', false],
  lengthTooLarge: ['length too large', false],
  lengthTruncated: ['truncated length', false],
};

/** Children are read with their parent, so a node's children are always there already. */
const readAlready = (): never => {
  throw new Asn1Error('children read with the parent');
};

/**
 * Reads one BER value that fills `input` (trailing zero or whitespace bytes are tolerated), the
 * whole tree at once: damage anywhere in it throws here.
 */
export function readBer(input: Buffer): Asn1Node {
  const node = readNode(input, 0, input.length, 0);
  for (let i = node.end; i < input.length; i++) {
    const b = input[i]!;
    if (b !== 0 && b !== 0x0d && b !== 0x0a && b !== 0x20)
      throw new Asn1Error('trailing data after the value');
  }
  return node;
}

/** One element and all below it, each bounded by its parent's end. */
function readNode(input: Buffer, start: number, limit: number, depth: number): Asn1Node {
  if (depth > maxDepth) throw new Asn1Error('nested too deeply');
  const header = readHeader(input, start, limit, words);
  const { tagClass, constructed, tag, contentStart } = header;
  const children: Asn1Node[] = [];
  let pos = contentStart;
  if (header.length === null) {
    for (;;) {
      if (pos + 2 > limit) throw new Asn1Error('truncated: missing end-of-contents');
      if (input[pos] === 0 && input[pos + 1] === 0) break;
      const child = readNode(input, pos, limit, depth + 1);
      children.push(child);
      pos = child.end;
    }
    return new Asn1Node(
      input,
      start,
      contentStart,
      pos,
      pos + 2,
      tagClass,
      constructed,
      tag,
      readAlready,
      children,
    );
  }
  const end = contentStart + header.length;
  if (end > limit) throw new Asn1Error(`truncated: a value of ${header.length} bytes runs past the end`);
  if (constructed) {
    while (pos < end) {
      const child = readNode(input, pos, end, depth + 1);
      children.push(child);
      pos = child.end;
    }
  }
  return new Asn1Node(
    input,
    start,
    contentStart,
    end,
    end,
    tagClass,
    constructed,
    tag,
    readAlready,
    children,
  );
}

function expectUniversal(node: Asn1Node, tag: number, what: string): Asn1Node {
  if (!node.isUniversal(tag)) throw new Asn1Error(`${what}: unexpected tag ${node.tagClass}/${node.tag}`);
  return node;
}

export function readOid(node: Asn1Node): string {
  expectUniversal(node, universalTag.oid, 'object identifier');
  const bytes = node.content;
  if (bytes.length === 0) throw new Asn1Error('empty object identifier');
  const arcs: number[] = [];
  let value = 0;
  for (const b of bytes) {
    value = value * 128 + (b & 0x7f);
    if (value > Number.MAX_SAFE_INTEGER / 128) throw new Asn1Error('object identifier arc too large');
    if ((b & 0x80) === 0) {
      if (arcs.length === 0)
        arcs.push(value < 80 ? Math.floor(value / 40) : 2, value < 80 ? value % 40 : value - 80);
      else arcs.push(value);
      value = 0;
    }
  }
  return arcs.join('.');
}

/**
 * The bytes of an OCTET STRING, primitive or constructed (chunked), without copying when it is
 * one piece. Context-tagged IMPLICIT OCTET STRINGs ([0] encryptedContent) are read the same way.
 */
export function octetChunks(node: Asn1Node): Buffer[] {
  if (!node.constructed) return [node.content];
  const out: Buffer[] = [];
  for (const child of node.children) out.push(...octetChunks(child));
  return out;
}

export function readOctets(node: Asn1Node): Buffer {
  const chunks = octetChunks(node);
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

export function readSmallInteger(node: Asn1Node): number {
  expectUniversal(node, universalTag.integer, 'integer');
  const bytes = node.content;
  if (bytes.length === 0 || bytes.length > 6) throw new Asn1Error('integer out of range');
  return bytes.readIntBE(0, bytes.length);
}
