/**
 * A DER writer that builds values as lists of Buffer chunks: a 64 MiB ciphertext is wrapped in
 * its OCTET STRING and ContentInfo without being copied, and `toBuffer` joins it once at the end.
 */
export interface Der {
  readonly length: number;
  readonly chunks: readonly Buffer[];
}

/**
 * The identifier and length octets of a value whose contents are `length` bytes (streamed
 * elsewhere), in one small buffer: a signed receipt writes some forty of these, and building each
 * from arrays and a concat was a tenth of the receipt's own JavaScript.
 */
export function tlvHeader(identifier: number, length: number): Buffer {
  if (length < 0x80) {
    const header = Buffer.allocUnsafe(2);
    header[0] = identifier;
    header[1] = length;
    return header;
  }
  let octets = 0;
  for (let n = length; n > 0; n = Math.floor(n / 256)) octets++;
  const header = Buffer.allocUnsafe(2 + octets);
  header[0] = identifier;
  header[1] = 0x80 | octets;
  for (let i = octets, n = length; i > 0; i--, n = Math.floor(n / 256)) header[1 + i] = n % 256;
  return header;
}

/** A value from its identifier octet (tags below 31 only, all CMS needs) and contents. */
export function tlv(identifier: number, contents: readonly (Der | Buffer)[]): Der {
  let length = 0;
  const body: Buffer[] = [];
  for (const part of contents) {
    if (Buffer.isBuffer(part)) {
      length += part.length;
      body.push(part);
    } else {
      length += part.length;
      body.push(...part.chunks);
    }
  }
  const header = tlvHeader(identifier, length);
  return { length: header.length + length, chunks: [header, ...body] };
}

export function toBuffer(value: Der): Buffer {
  return value.chunks.length === 1 ? value.chunks[0]! : Buffer.concat(value.chunks as Buffer[], value.length);
}

/** An encoding received or made elsewhere, included as it is. */
export function raw(bytes: Buffer): Der {
  return { length: bytes.length, chunks: [bytes] };
}

export function sequence(...items: Der[]): Der {
  return tlv(0x30, items);
}

/** A DER SET OF: members sorted by their encodings (X.690 §11.6), as signed attributes require. */
export function setOf(items: readonly Der[]): Der {
  const encoded = items.map(toBuffer).sort(Buffer.compare);
  return tlv(0x31, encoded);
}

// The same few OIDs are written for every message; encode each once.
const oidCache = new Map<string, Der>();

export function oid(dotted: string): Der {
  const cached = oidCache.get(dotted);
  if (cached) return cached;
  const arcs = dotted.split('.').map(Number);
  const [a, b, ...rest] = arcs;
  const bytes: number[] = [];
  for (const arc of [a! * 40 + b!, ...rest]) {
    const groups: number[] = [arc % 128];
    for (let n = Math.floor(arc / 128); n > 0; n = Math.floor(n / 128)) groups.unshift((n % 128) | 0x80);
    bytes.push(...groups);
  }
  const value = tlv(0x06, [Buffer.from(bytes)]);
  if (oidCache.size < 256) oidCache.set(dotted, value);
  return value;
}

export function integer(value: number): Der {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError('integer: only small non-negative values');
  const bytes: number[] = [];
  for (let n = value; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  if (bytes.length === 0 || bytes[0]! >= 0x80) bytes.unshift(0);
  return tlv(0x02, [Buffer.from(bytes)]);
}

export function octetString(bytes: Buffer | readonly Buffer[]): Der {
  return tlv(0x04, Buffer.isBuffer(bytes) ? [bytes] : bytes);
}

export const nullValue: Der = { length: 2, chunks: [Buffer.from([0x05, 0x00])] };

/** UTCTime for 1950–2049, GeneralizedTime outside it (RFC 5652 §11.3). */
export function time(date: Date): Der {
  const iso = date.toISOString(); // 2026-11-21T03:52:33.123Z
  const compact = iso.slice(0, 19).replace(/[-:T]/g, '') + 'Z'; // 20261121035233Z
  const year = date.getUTCFullYear();
  if (year >= 1950 && year < 2050) return tlv(0x17, [Buffer.from(compact.slice(2), 'latin1')]);
  return tlv(0x18, [Buffer.from(compact, 'latin1')]);
}

/** [n] EXPLICIT: a constructed context tag around the value. */
export function explicit(tagNumber: number, value: Der): Der {
  return tlv(0xa0 | tagNumber, [value]);
}

/**
 * [n] IMPLICIT: the value's own tag replaced by a context tag. Only the header chunk is copied;
 * `constructed` follows the replaced tag's form.
 */
export function implicit(tagNumber: number, value: Der): Der {
  const header = Buffer.from(value.chunks[0]!);
  header[0] = (header[0]! & 0x20) | 0x80 | tagNumber;
  return { length: value.length, chunks: [header, ...value.chunks.slice(1)] };
}

export function algorithmIdentifier(algorithm: string, parameters?: Der): Der {
  return parameters ? sequence(oid(algorithm), parameters) : sequence(oid(algorithm));
}
