/**
 * A BER reader over Buffers. CMS arrives as BER: OpenSSL, BouncyCastle and Java stream it with
 * indefinite lengths and chunked OCTET STRINGs. Nodes are views into the input (nothing is
 * copied), and `raw` is the exact encoding as received, which signed-attribute checks need.
 * node-forge's reader works on binary strings and re-encodes; this one keeps bytes as they are.
 */
export class Asn1Error extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Asn1Error';
  }
}

const tagClass = { universal: 0, application: 1, context: 2, private: 3 } as const;

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

/** Deep enough for any CMS or certificate; stops a crafted message from exhausting the stack. */
const maxDepth = 48;

export class Asn1Node {
  constructor(
    private readonly input: Buffer,
    /** Offset of the identifier octet. */
    readonly start: number,
    readonly headerLength: number,
    /** End of the contents (before the end-of-contents octets of an indefinite length). */
    readonly contentEnd: number,
    /** End of the whole encoding. */
    readonly end: number,
    readonly tagClass: number,
    readonly constructed: boolean,
    readonly tag: number,
    readonly children: readonly Asn1Node[],
  ) {}

  /** The encoding exactly as received, header included. */
  get raw(): Buffer {
    return this.input.subarray(this.start, this.end);
  }

  get content(): Buffer {
    return this.input.subarray(this.start + this.headerLength, this.contentEnd);
  }

  is(cls: number, tag: number): boolean {
    return this.tagClass === cls && this.tag === tag;
  }

  isUniversal(tag: number): boolean {
    return this.is(tagClass.universal, tag);
  }

  isContext(tag: number): boolean {
    return this.is(tagClass.context, tag);
  }

  /** The i-th child, or an Asn1Error naming what was expected there. */
  child(i: number, what: string): Asn1Node {
    const node = this.children[i];
    if (!node) throw new Asn1Error(`missing ${what}`);
    return node;
  }
}

/** Reads one BER value that fills `input` (trailing zero or whitespace bytes are tolerated). */
export function readBer(input: Buffer): Asn1Node {
  const node = readNode(input, 0, input.length, 0);
  for (let i = node.end; i < input.length; i++) {
    const b = input[i]!;
    if (b !== 0 && b !== 0x0d && b !== 0x0a && b !== 0x20)
      throw new Asn1Error('trailing data after the value');
  }
  return node;
}

function readNode(input: Buffer, start: number, limit: number, depth: number): Asn1Node {
  if (depth > maxDepth) throw new Asn1Error('nested too deeply');
  let pos = start;
  if (pos >= limit) throw new Asn1Error('truncated: expected a value');
  const first = input[pos++]!;
  const cls = first >> 6;
  const constructed = (first & 0x20) !== 0;
  let tag = first & 0x1f;
  if (tag === 0x1f) {
    tag = 0;
    for (let n = 0; ; n++) {
      if (pos >= limit || n > 3) throw new Asn1Error('truncated or oversized tag');
      const b = input[pos++]!;
      tag = tag * 128 + (b & 0x7f);
      if ((b & 0x80) === 0) break;
    }
  }
  if (pos >= limit) throw new Asn1Error('truncated: expected a length');
  const lengthByte = input[pos++]!;
  if (lengthByte === 0x80) {
    if (!constructed) throw new Asn1Error('indefinite length on a primitive value');
    const headerLength = pos - start;
    const children: Asn1Node[] = [];
    for (;;) {
      if (pos + 2 > limit) throw new Asn1Error('truncated: missing end-of-contents');
      if (input[pos] === 0 && input[pos + 1] === 0) break;
      const child = readNode(input, pos, limit, depth + 1);
      children.push(child);
      pos = child.end;
    }
    return new Asn1Node(input, start, headerLength, pos, pos + 2, cls, constructed, tag, children);
  }
  let length = lengthByte;
  if (lengthByte > 0x80) {
    const count = lengthByte & 0x7f;
    if (count > 4) throw new Asn1Error('length too large');
    if (pos + count > limit) throw new Asn1Error('truncated length');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + input[pos++]!;
  }
  const headerLength = pos - start;
  const end = pos + length;
  if (end > limit) throw new Asn1Error(`truncated: a value of ${length} bytes runs past the end`);
  const children: Asn1Node[] = [];
  if (constructed) {
    while (pos < end) {
      const child = readNode(input, pos, end, depth + 1);
      children.push(child);
      pos = child.end;
    }
  }
  return new Asn1Node(input, start, headerLength, end, end, cls, constructed, tag, children);
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
