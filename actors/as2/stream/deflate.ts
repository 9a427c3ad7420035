/**
 * The zlib stream of CompressedData for a streamed entity, byte for byte what
 * cms/compressed-data.ts deflateParts makes of the same pieces in memory: a small entity in one
 * zlib stream; a large one piece by piece, raw deflate ending each piece but the last with a sync
 * flush, between the zlib header and the Adler-32 of everything. The bytes must be the same,
 * because a signature made after compressing covers them and the receipt's MIC with it.
 */
import { constants, createDeflate, createDeflateRaw, deflateRawSync } from 'node:zlib';
import { adler32, joinBelowBytes } from '../../../pki/cms/compressed-data.js';
import { readPiece, readSource, type Source } from './source.js';
import type { FileSink } from './temp-files.js';
import { transformInto } from './pipe.js';

export async function deflateInto(content: Source, sink: FileSink): Promise<void> {
  if (content.chunks.length === 1 || content.length < joinBelowBytes) {
    await transformInto(readSource(content), createDeflate(), sink);
    return;
  }
  await sink.write(Buffer.from([0x78, 0x9c])); // deflate, 32 KiB window, default level
  let checksum = 1;
  const last = content.chunks.length - 1;
  for (const [i, piece] of content.chunks.entries()) {
    const finishFlush = i < last ? constants.Z_SYNC_FLUSH : constants.Z_FINISH;
    if (Buffer.isBuffer(piece)) {
      checksum = adler32([piece], checksum);
      await sink.write(deflateRawSync(piece, { finishFlush }));
      continue;
    }
    const counted = async function* () {
      for await (const chunk of readPiece(piece)) {
        checksum = adler32([chunk], checksum);
        yield chunk;
      }
    };
    await transformInto(counted(), createDeflateRaw({ finishFlush }), sink);
  }
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(checksum);
  await sink.write(trailer);
}
