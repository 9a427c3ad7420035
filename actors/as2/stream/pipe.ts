/** Streamed passes over a source into a temporary file, each bounded to a slice in memory. */
import { Readable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FileSink } from './temp-files.js';
import { fileRange, type FileRange } from './source.js';

/** Runs `fill` against a new file; the file's range once it is closed. */
export async function intoFile(file: string, fill: (sink: FileSink) => Promise<void>): Promise<FileRange> {
  const sink = new FileSink(file);
  try {
    await fill(sink);
  } catch (error) {
    sink.abandon();
    throw error;
  }
  return fileRange(file, await sink.close());
}

/** `input` through a node:stream Transform (zlib, base64) into the sink. */
export async function transformInto(
  input: AsyncIterable<Buffer>,
  transform: Transform,
  sink: FileSink,
): Promise<void> {
  await pipeline(Readable.from(input), transform, async (output: AsyncIterable<Buffer>) => {
    for await (const chunk of output) await sink.write(chunk);
  });
}
