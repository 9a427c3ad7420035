/**
 * A stage kept as the zlib stream its document arrived in (PayloadStore.putDeflated), in one file
 * or object: a 16-byte header (`PIZ1`, the bytes of inflated MIME headers to skip before the
 * document, the document's size), then the zlib stream as the partner sent it. A 1 MiB EDI
 * document compressed by its partner is stored in a few KiB instead of written out whole, which on
 * the receive path cost more CPU than its decryption (benchmarks/history/
 * 2026-11-26-side-by-side-on-a-full-speed-host-and-the-1-mib-kernel-copies.md).
 */
import { Readable, Transform } from 'node:stream';
import { createInflate, inflateSync } from 'node:zlib';
import type { DeflatedDocument } from './store.js';
import { limits } from '../../limits/limits.js';

const magic = Buffer.from('PIZ1', 'latin1');
export const deflatedHeaderBytes = 16;

/** The header that goes before the zlib stream. */
export function deflatedHeader(document: Pick<DeflatedDocument, 'skip' | 'size'>): Buffer {
  const header = Buffer.alloc(deflatedHeaderBytes);
  magic.copy(header, 0);
  header.writeUInt32BE(document.skip, 4);
  header.writeBigUInt64BE(BigInt(document.size), 8);
  return header;
}

export class DeflatedStageDamaged extends Error {
  constructor(problem: string) {
    super(`The stored deflated stage is damaged: ${problem}`);
    this.name = 'DeflatedStageDamaged';
  }
}

function inflatedAtOnce(stored: Buffer, skip: number, size: number): Buffer {
  let entity: Buffer;
  try {
    entity = inflateSync(stored.subarray(deflatedHeaderBytes), { maxOutputLength: skip + size });
  } catch (error) {
    throw new DeflatedStageDamaged((error as Error).message);
  }
  if (entity.length !== skip + size)
    throw new DeflatedStageDamaged(`it inflates to ${entity.length - skip} of ${size} bytes`);
  return entity.subarray(skip);
}

/**
 * The document of a stored deflated stage (header and zlib stream, `stored`), inflated as it is
 * read; the stream errors when the bytes are not such a stage or do not inflate to the size the
 * header gives.
 */
export function inflatedDocument(stored: Buffer): Readable {
  if (stored.length < deflatedHeaderBytes || !stored.subarray(0, 4).equals(magic))
    throw new DeflatedStageDamaged('no header');
  const skip = stored.readUInt32BE(4);
  const size = Number(stored.readBigUInt64BE(8));
  if (skip + size <= limits.inflatedAtOnceMaxBytes)
    return Readable.from([inflatedAtOnce(stored, skip, size)]);
  let seen = 0;
  let given = 0;
  const document = new Transform({
    transform(piece: Buffer, _encoding, done) {
      const from = seen;
      seen += piece.length;
      if (seen <= skip) return done();
      const part = from >= skip ? piece : piece.subarray(skip - from);
      given += part.length;
      if (given > size) return done(new DeflatedStageDamaged(`it inflates to more than ${size} bytes`));
      done(null, part);
    },
    flush(done) {
      done(given === size ? null : new DeflatedStageDamaged(`it inflates to ${given} of ${size} bytes`));
    },
  });
  const inflate = createInflate({ chunkSize: limits.inflateChunkBytes });
  inflate.on('error', (error) => document.destroy(new DeflatedStageDamaged(error.message)));
  inflate.pipe(document);
  inflate.end(stored.subarray(deflatedHeaderBytes));
  return document;
}
