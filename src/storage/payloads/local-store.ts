/**
 * The local directory store: `<directory>/<message id>/<stage>` (spec 2.11). A stage is
 * written to a temporary name, flushed to disk, then renamed, so a crash never leaves a
 * half-written stage under its real name.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  PayloadMissing,
  PayloadTooLarge,
  storedStages,
  type PayloadRef,
  type PayloadStore,
  type PutOptions,
} from './store.js';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Counts bytes on the way through and stops a stream that grows past the limit. */
function byteCounter(maxBytes: number | undefined): Transform & { bytes: number } {
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      counter.bytes += chunk.length;
      if (maxBytes !== undefined && counter.bytes > maxBytes) done(new PayloadTooLarge(maxBytes));
      else done(null, chunk);
    },
  }) as Transform & { bytes: number };
  counter.bytes = 0;
  return counter;
}

export class LocalPayloadStore implements PayloadStore {
  readonly directory: string;

  constructor(directory: string) {
    this.directory = path.resolve(directory);
  }

  /** The file of a stage; the parts are checked so no reference can point outside the store. */
  pathOf(ref: PayloadRef): string {
    if (!uuid.test(ref.messageId)) throw new Error(`Not a message id: ${ref.messageId}`);
    if (!(storedStages as readonly string[]).includes(ref.stage))
      throw new Error(`Not a stage: ${ref.stage}`);
    return path.join(this.directory, ref.messageId, ref.stage);
  }

  async put(ref: PayloadRef, source: Readable, options: PutOptions = {}): Promise<number> {
    const final = this.pathOf(ref);
    const dir = path.dirname(final);
    await mkdir(dir, { recursive: true });
    const temp = path.join(dir, `.${ref.stage}.${randomBytes(6).toString('hex')}.tmp`);
    const counter = byteCounter(options.maxBytes);
    try {
      // flush: the bytes are on disk before the stage gets its real name.
      await pipeline(source, counter, createWriteStream(temp, { flags: 'wx', flush: true }));
    } catch (error) {
      source.destroy();
      await unlink(temp).catch(() => {});
      throw error;
    }
    await rename(temp, final);
    return counter.bytes;
  }

  async open(ref: PayloadRef): Promise<Readable> {
    const file = this.pathOf(ref);
    const handle = await open(file, 'r').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new PayloadMissing(ref);
      throw error;
    });
    return handle.createReadStream();
  }

  async removeMessage(messageId: string): Promise<void> {
    if (!uuid.test(messageId)) throw new Error(`Not a message id: ${messageId}`);
    await rm(path.join(this.directory, messageId), { recursive: true, force: true });
  }
}
