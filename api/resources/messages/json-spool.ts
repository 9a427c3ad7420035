/**
 * A JSON request body kept in a temporary file as it arrives, for POST /messages/edi (EDI as
 * JSON): the body's properties come in any order (`from` and `to` may follow a 60 MiB
 * `interchange`), so it is read twice, once to check it and once to write the interchange, and
 * never held in memory (docs/decisions/edi-json-sends-stream-from-a-spool-file.md). The file lives
 * under the data directory's `temporary` folder and is removed when the request is answered.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { ApiError } from '../../errors.js';
import { describeLimit } from '../../plugins/error-handler.js';
import { limits } from '../../../limits/limits.js';

/** A spooled body: its file and size in bytes; `remove` may be called more than once. */
export class BodySpool {
  #removed: Promise<void> | null = null;

  constructor(
    readonly file: string,
    readonly size: number,
  ) {}

  /**
   * The body's text again, from the start, read through one buffer: a new buffer for every
   * chunk would leave up to V8's external-memory threshold (64 MiB) of them waiting for a
   * collection, several times over a 65 MiB body's passes, and RSS would grow with the body.
   */
  async *text(): AsyncGenerator<string> {
    const handle = await open(this.file, 'r');
    const buffer = Buffer.allocUnsafe(limits.jsonSpoolReadBytes);
    const decoder = new StringDecoder('utf8');
    try {
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) break;
        yield decoder.write(buffer.subarray(0, bytesRead));
      }
      yield decoder.end();
    } finally {
      await handle.close();
    }
  }

  remove(): Promise<void> {
    return (this.#removed ??= rm(this.file, { force: true }));
  }
}

/** The folder of spooled bodies under the process's data directory. */
export const spoolDirectory = (dataDir: string): string => path.join(dataDir, 'temporary');

/**
 * Writes `payload` to a new file in `directory`, refusing it as fastify refuses a body it reads
 * (413 above `limit`, counted as it streams; 400 when the size differs from Content-Length), and
 * leaving no file behind when it refuses or the client goes away.
 */
export async function spoolBody(
  payload: Readable,
  directory: string,
  limit: number,
  contentLength: string | undefined,
): Promise<BodySpool> {
  const declared = contentLength === undefined ? Number.NaN : Number(contentLength);
  const tooLarge = () => new ApiError('PAYLOAD_TOO_LARGE', describeLimit(limit));
  if (declared > limit) throw tooLarge();
  await mkdir(directory, { recursive: true });
  const file = path.join(directory, `send-json-${randomUUID()}.json`);
  let size = 0;
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      done(size > limit ? tooLarge() : null, chunk);
    },
  });
  try {
    await pipeline(payload, count, createWriteStream(file, { flags: 'wx' }));
    if (!Number.isNaN(declared) && size !== declared)
      throw new ApiError('INVALID_INPUT', 'Invalid request body', {
        body: 'Request body size did not match Content-Length',
      });
  } catch (error) {
    await rm(file, { force: true });
    // A client that stops sending mid-body sent a bad request, not a server failure.
    if ((error as { code?: unknown }).code === 'ERR_STREAM_PREMATURE_CLOSE')
      throw new ApiError('INVALID_INPUT', 'Invalid request body', { body: 'The request body ended early' });
    throw error;
  }
  return new BodySpool(file, size);
}
