/**
 * The temporary files of one outgoing message, in a directory of their own under the OS
 * temporary directory (or another root), so removing that directory removes them all, whatever
 * step failed.
 */
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sliceBytes } from './source.js';

export class TempFiles {
  #count = 0;

  private constructor(readonly directory: string) {}

  static async create(root: string = os.tmpdir()): Promise<TempFiles> {
    return new TempFiles(await mkdtemp(path.join(root, 'pier-send-')));
  }

  /** A new file name in the directory; `what` is for whoever looks at the directory. */
  name(what: string): string {
    this.#count += 1;
    return path.join(this.directory, `${this.#count}-${what}`);
  }

  async remove(): Promise<void> {
    await rm(this.directory, { recursive: true, force: true });
  }
}

/** Writes a file from chunks as they come, waiting for the disk when its buffer is full. */
export class FileSink {
  readonly #stream: WriteStream;
  #failure: Error | null = null;
  length = 0;

  constructor(readonly file: string) {
    this.#stream = createWriteStream(file, { flags: 'wx', highWaterMark: sliceBytes });
    this.#stream.on('error', (error) => (this.#failure = error));
  }

  async write(chunk: Buffer): Promise<void> {
    if (this.#failure) throw this.#failure;
    this.length += chunk.length;
    if (!this.#stream.write(chunk)) await once(this.#stream, 'drain');
  }

  /** Closes the file; its length once every write has reached it. */
  async close(): Promise<number> {
    this.#stream.end();
    await once(this.#stream, 'close');
    if (this.#failure) throw this.#failure;
    return this.length;
  }

  /** After a failure elsewhere: closes without waiting for what is left (the directory goes anyway). */
  abandon(): void {
    this.#stream.destroy();
  }
}
