/**
 * The local directory store: `<directory>/<message id>/<stage>` (docs/api/settings.md). A stage is
 * written once (never replaced) and flushed to disk before put resolves. A crash can leave
 * a partial file, but only of a stage that was never recorded, which nothing reads.
 * Flushing is fdatasync where we call it ourselves: it writes the data and what is needed to
 * read it back (size, blocks) as fsync does, without the timestamps, and costs less CPU and
 * time per file (this path writes five files per AS2 message).
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { constants } from 'node:fs';
import { access, copyFile, mkdir, open, readFile, rm, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { deflatedHeader, inflatedDocument } from './deflated.js';
import { writeDirect } from './direct-write.js';
import {
  checkMessageId,
  checkRef,
  type DeflatedDocument,
  PayloadMissing,
  PayloadTooLarge,
  type PayloadRef,
  type PayloadStore,
  type PutOptions,
} from './store.js';
import type { StoreSelection } from './selection.js';
import { limits } from '../../limits/limits.js';

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

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

export class LocalPayloadStore implements PayloadStore {
  readonly directory: string;

  get selection(): StoreSelection {
    return { backend: 'local', directory: this.directory };
  }

  constructor(directory: string) {
    this.directory = path.resolve(directory);
  }

  /** The file of a stage; the parts are checked so no reference can point outside the store. */
  pathOf(ref: PayloadRef): string {
    checkRef(ref);
    return path.join(this.directory, ref.messageId, ref.stage);
  }

  /** The file of a stage kept deflated (putDeflated): beside where its bytes would be. */
  deflatedPathOf(ref: PayloadRef): string {
    return `${this.pathOf(ref)}.z`;
  }

  /** Message directories made lately: the stages of a message are written one after another. */
  readonly #made = new Map<string, Promise<unknown>>();

  /**
   * The message's directory (and the store's own on first use), made once for all its
   * stages. Recursive, because a recursive mkdir of an existing directory succeeds quietly,
   * where a plain one throws EEXIST, and building that error costs more than the write of a
   * small stage.
   */
  async #messageDir(file: string): Promise<void> {
    const dir = path.dirname(file);
    let made = this.#made.get(dir);
    if (!made) {
      if (this.#made.size >= 1000) this.#made.clear();
      made = mkdir(dir, { recursive: true }).catch((error: NodeJS.ErrnoException) =>
        // A recursive mkdir says ENOENT when it could not make a directory (a read-only or
        // full file system); a plain one says why, for the log and the storage_failed alert.
        mkdir(dir).then(
          () => undefined,
          (plain: NodeJS.ErrnoException) => {
            throw plain.code === 'EEXIST' ? error : plain;
          },
        ),
      );
      made.catch(() => this.#made.delete(dir));
      this.#made.set(dir, made);
    }
    await made;
  }

  async putFile(ref: PayloadRef, source: string): Promise<number> {
    const file = this.pathOf(ref);
    await this.#messageDir(file);
    try {
      await copyFile(source, file, constants.COPYFILE_EXCL);
      const copy = await open(file, 'r+');
      try {
        await copy.datasync();
        return (await copy.stat()).size;
      } finally {
        await copy.close();
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') await unlink(file).catch(() => {});
      throw error;
    }
  }

  async put(ref: PayloadRef, source: Readable, options: PutOptions = {}): Promise<number> {
    const file = this.pathOf(ref);
    await this.#messageDir(file);
    const counter = byteCounter(options.maxBytes);
    // flush: on disk before put resolves, so before the stage is recorded.
    const sink = createWriteStream(file, {
      flags: 'wx',
      flush: true,
      highWaterMark: limits.streamSliceBytes,
    });
    try {
      await pipeline(source, counter, sink);
    } catch (error) {
      source.destroy();
      // A pipeline that fails at once (a stream over maxBytes) can fail before the file is open:
      // it is created when the open ends, so the removal waits for the stream to close.
      if (!sink.closed) await once(sink, 'close').catch(() => {});
      // A stage stored already is not this write's to remove.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') await unlink(file).catch(() => {});
      throw error;
    }
    return counter.bytes;
  }

  async putBytes(ref: PayloadRef, bytes: Uint8Array): Promise<number> {
    await this.#writeFlushed(this.pathOf(ref), [bytes]);
    return bytes.length;
  }

  /** Written as one flushed file of the header and the zlib stream: it is small (a few KiB for a MiB of EDI). */
  async putDeflated(ref: PayloadRef, deflated: DeflatedDocument): Promise<number> {
    await this.#writeFlushed(this.deflatedPathOf(ref), [deflatedHeader(deflated), ...deflated.chunks]);
    return deflated.size;
  }

  /** A new file of `pieces`, flushed; removed again when any step fails. */
  async #writeFlushed(file: string, pieces: readonly Uint8Array[]): Promise<void> {
    await this.#messageDir(file);
    const handle = await open(file, 'wx');
    try {
      const bytes = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
      // A large one straight to the disk (direct-write.ts); writeFile writes until every byte is
      // out (a writev may write part and answer no error).
      if (!(await writeDirect(file, bytes))) await handle.writeFile(bytes);
      await handle.datasync();
    } catch (error) {
      await handle.close().catch(() => {});
      await unlink(file).catch(() => {});
      throw error;
    }
    await handle.close();
  }

  async open(ref: PayloadRef): Promise<Readable> {
    const file = this.pathOf(ref);
    const handle = await open(file, 'r').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    if (handle) return handle.createReadStream({ highWaterMark: limits.streamSliceBytes });
    const deflated = await readFile(this.deflatedPathOf(ref)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new PayloadMissing(ref);
      throw error;
    });
    return inflatedDocument(deflated);
  }

  async fileOf(ref: PayloadRef): Promise<string | null> {
    const file = this.pathOf(ref);
    if (await exists(file)) return file;
    if (await exists(this.deflatedPathOf(ref))) return null;
    throw new PayloadMissing(ref);
  }

  async copyToFile(ref: PayloadRef, destination: string): Promise<boolean> {
    try {
      // A clone where the file system can (XFS, btrfs: the blocks are shared, nothing is copied or
      // flushed again), else a copy by the kernel.
      await copyFile(this.pathOf(ref), destination, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !(await exists(this.pathOf(ref)))) {
        // Kept deflated: not a file to copy; the caller streams it from open.
        if (await exists(this.deflatedPathOf(ref))) return false;
        throw new PayloadMissing(ref);
      }
      throw error;
    }
    const copy = await open(destination, 'r+');
    try {
      await copy.datasync();
    } finally {
      await copy.close();
    }
    return true;
  }

  async removeMessage(messageId: string): Promise<void> {
    checkMessageId(messageId);
    this.#made.delete(path.join(this.directory, messageId));
    await rm(path.join(this.directory, messageId), { recursive: true, force: true });
  }
}
