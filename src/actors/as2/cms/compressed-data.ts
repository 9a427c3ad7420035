/**
 * CompressedData (RFC 3274) with zlib (RFC 1950), through node:zlib. Debian's openssl has no
 * zlib, so this is the one CMS layer tested with `openssl asn1parse` instead of `openssl cms`.
 */
import { deflateSync, inflateSync } from 'node:zlib';
import { DispositionError } from '../vocabulary/disposition-error.js';
import { oids } from '../vocabulary/oids.js';
import { Asn1Error, octetChunks, readOid } from './asn1/reader.js';
import {
  algorithmIdentifier,
  explicit,
  integer,
  octetString,
  oid,
  sequence,
  toBuffer,
} from './asn1/writer.js';
import { readContentInfo } from './content-info.js';

export function compress(content: readonly Buffer[]): Buffer {
  const joined = content.length === 1 ? content[0]! : Buffer.concat(content);
  const compressed = deflateSync(joined);
  return toBuffer(
    sequence(
      oid(oids.compressedData),
      explicit(
        0,
        sequence(
          integer(0),
          algorithmIdentifier(oids.zlibCompress),
          sequence(oid(oids.data), explicit(0, octetString(compressed))),
        ),
      ),
    ),
  );
}

export interface DecompressOptions {
  /** Refuse content that inflates beyond this many bytes (a zip bomb). */
  maxBytes: number;
}

/** The decompressed content; any failure is a DispositionError with decompression-failed. */
export function decompress(der: Buffer, options: DecompressOptions): Buffer {
  let chunks: Buffer[];
  try {
    const info = readContentInfo(der);
    if (info.type !== oids.compressedData) throw new Asn1Error(`not CompressedData but ${info.type}`);
    const algorithm = readOid(info.content.child(1, 'compressionAlgorithm').child(0, 'algorithm'));
    if (algorithm !== oids.zlibCompress) throw new Asn1Error(`unsupported compression ${algorithm}`);
    const encap = info.content.child(2, 'encapContentInfo');
    const eContent = encap.child(1, 'eContent');
    if (!eContent.isContext(0)) throw new Asn1Error('eContent is not [0]');
    chunks = octetChunks(eContent.child(0, 'eContent octets'));
  } catch (error) {
    throw new DispositionError(
      'decompression-failed',
      `unreadable CompressedData: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  try {
    const input = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    return inflateSync(input, { maxOutputLength: options.maxBytes });
  } catch (error) {
    throw new DispositionError('decompression-failed', `cannot decompress: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
