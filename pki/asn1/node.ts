/**
 * The one ASN.1 element type of pki/: a view into the input (nothing is copied) with its byte
 * offsets, whose children are read when first asked for. Two readers make these nodes, and they
 * differ only in when damaged input throws, which the refusals depend on:
 * - reader.ts (CMS) reads the whole tree at once, each child bounded by its parent, so a damaged
 *   message fails before any of it is used, with the failure of the step that read it;
 * - tlv.ts (certificate files) reads an element's children only when asked, bounded by the file,
 *   so a file whose damage lies where nothing looks still yields its certificates.
 * Both decode headers with readHeader(), each in its own words (messages reach operators).
 */

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

export const tagClasses = { universal: 0, application: 1, context: 2, private: 3 } as const;

/** Deep enough for any CMS message or certificate; deeper nesting is hostile input. */
export const maxDepth = 48;

export class Asn1Node {
  #children: readonly Asn1Node[] | undefined;

  constructor(
    /** The whole input the element was read from. */
    readonly source: Buffer,
    /** Offset of the identifier octet. */
    readonly start: number,
    /** Offset of the first content byte. */
    readonly contentStart: number,
    /** End of the contents (before the end-of-contents octets of an indefinite length). */
    readonly contentEnd: number,
    /** End of the whole encoding, end-of-contents octets included. */
    readonly end: number,
    readonly tagClass: number,
    readonly constructed: boolean,
    readonly tag: number,
    /** Reads the children when they are first asked for; throws as that reader does. */
    private readonly readChildren: (node: Asn1Node) => readonly Asn1Node[],
    children?: readonly Asn1Node[],
  ) {
    this.#children = children;
  }

  get headerLength(): number {
    return this.contentStart - this.start;
  }

  /** The encoding exactly as received, header included. */
  get raw(): Buffer {
    return this.source.subarray(this.start, this.end);
  }

  get content(): Buffer {
    return this.source.subarray(this.contentStart, this.contentEnd);
  }

  /** Read once; a read that throws is not kept, so asking again throws again. */
  get children(): readonly Asn1Node[] {
    this.#children ??= this.readChildren(this);
    return this.#children;
  }

  is(cls: number, tag: number): boolean {
    return this.tagClass === cls && this.tag === tag;
  }

  isUniversal(tag: number): boolean {
    return this.is(tagClasses.universal, tag);
  }

  isContext(tag: number): boolean {
    return this.is(tagClasses.context, tag);
  }

  /** The i-th child, or an Asn1Error naming what was expected there. */
  child(i: number, what: string): Asn1Node {
    const node = this.children[i];
    if (!node) throw new Asn1Error(`missing ${what}`);
    return node;
  }
}

/** A refusal in a reader's words: the message, and whether it means the input was cut short. */
export type Word = readonly [message: string, truncated: boolean];

/** What a reader says for each way a header can be damaged. */
export interface HeaderWords {
  /** The input ends where a tag byte was expected. */
  noValue: Word;
  /** The input ends inside a multi-byte tag. */
  tagTruncated: Word;
  tagTooLarge: Word;
  /** The input ends where the length was expected. */
  noLength: Word;
  indefinitePrimitive: Word;
  lengthTooLarge: Word;
  /** The input ends inside a long-form length. */
  lengthTruncated: Word;
}

export function refusal([message, truncated]: Word): Asn1Error {
  return new Asn1Error(message, truncated);
}

export interface Header {
  tagClass: number;
  constructed: boolean;
  tag: number;
  contentStart: number;
  /** The content's length, or null for an indefinite length. */
  length: number | null;
}

/** Identifier and length octets at `offset`, read no further than `limit`. */
export function readHeader(source: Buffer, offset: number, limit: number, words: HeaderWords): Header {
  let pos = offset;
  if (pos >= limit) throw refusal(words.noValue);
  const first = source[pos++]!;
  const tagClass = first >> 6;
  const constructed = (first & 0x20) !== 0;
  let tag = first & 0x1f;
  if (tag === 0x1f) {
    tag = 0;
    for (let n = 0; ; n++) {
      if (pos >= limit) throw refusal(words.tagTruncated);
      if (n > 3) throw refusal(words.tagTooLarge);
      const b = source[pos++]!;
      tag = tag * 128 + (b & 0x7f);
      if ((b & 0x80) === 0) break;
    }
  }
  if (pos >= limit) throw refusal(words.noLength);
  const lengthByte = source[pos++]!;
  if (lengthByte === 0x80) {
    if (!constructed) throw refusal(words.indefinitePrimitive);
    return { tagClass, constructed, tag, contentStart: pos, length: null };
  }
  let length = lengthByte;
  if (lengthByte > 0x80) {
    const count = lengthByte & 0x7f;
    if (count > 4) throw refusal(words.lengthTooLarge);
    if (pos + count > limit) throw refusal(words.lengthTruncated);
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + source[pos++]!;
  }
  return { tagClass, constructed, tag, contentStart: pos, length };
}
