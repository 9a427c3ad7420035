/**
 * A large document written straight to the disk (`O_DIRECT`), not through the page cache. Pier
 * flushes every document it writes before anything counts on it (a stage before it is recorded,
 * a delivered file before it is named), and does not read it back: filling page-cache pages with
 * it only to flush them at once is a copy through the kernel: 4–5 ms of CPU a mebibyte into pages
 * a virtual machine does not hold yet, 0.85 into recycled ones, against 0.5 ms direct
 * (benchmarks/history/2026-11-27-a-large-document-written-straight-to-the-disk.md).
 * Small documents gain nothing (a direct write waits for the disk at once) and stay buffered.
 *
 * Direct I/O needs the memory, the file offset and the length aligned to the disk's blocks. A
 * WebAssembly memory starts on a page boundary (V8 reserves it in whole pages), so a few such
 * slabs, reused, are the aligned buffers: the document is copied into one piece by piece and each
 * piece written padded to 4 KiB; the file is cut back to the document's length afterwards. A file
 * system without direct I/O (tmpfs before Linux 6.6, some FUSE ones) refuses it when the file is
 * opened, and the caller then writes the document as before.
 */
import { ftruncate, open, close, write, constants } from 'node:fs';
import { promisify } from 'node:util';
import { limits } from '../../limits/limits.js';

/** Every direct write's length and offset are multiples of this: a 4 KiB block covers 512-byte disks too. */
const blockBytes = 4096;

const openFile = promisify(open);
const closeFile = promisify(close);
const writeAt = promisify(write);
const truncate = promisify(ftruncate);

class SlabPool {
  readonly #free: Buffer[] = [];
  readonly #waiting: ((slab: Buffer) => void)[] = [];
  #made = 0;

  /** A slab, waiting for one when all are writing; null when none can be made (no WebAssembly: `--jitless`). */
  take(): Promise<Buffer | null> {
    const slab = this.#free.pop();
    if (slab) return Promise.resolve(slab);
    if (this.#made < limits.directMaxSlabs) {
      try {
        const made = Buffer.from(new WebAssembly.Memory({ initial: limits.directSlabBytes / 65_536 }).buffer);
        this.#made++;
        return Promise.resolve(made);
      } catch {
        if (this.#made === 0) return Promise.resolve(null);
      }
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  give(slab: Buffer): void {
    const next = this.#waiting.shift();
    if (next) next(slab);
    else this.#free.push(slab);
  }
}

const slabs = new SlabPool();

/** True for the errors with which a file system or a disk says it takes no direct I/O of this shape. */
const refusesDirect = (error: unknown) => (error as NodeJS.ErrnoException).code === 'EINVAL';

/**
 * Writes `bytes` into `file`, which the caller has just created (empty) and flushes afterwards,
 * through a second descriptor opened for direct I/O. False, with the file still empty, when the
 * bytes are under `limits.directMinBytes`, when the file system or the disk refuses direct I/O, or when
 * no aligned buffer can be made: the caller writes the bytes itself then. The bytes are on the
 * disk when this resolves, but the file's length and blocks only after the caller's `fdatasync`.
 */
export async function writeDirect(file: string, bytes: Uint8Array): Promise<boolean> {
  if (bytes.length < limits.directMinBytes) return false;
  const slab = await slabs.take();
  if (!slab) return false;
  let fd: number;
  try {
    fd = await openFile(file, constants.O_WRONLY | constants.O_DIRECT);
  } catch (error) {
    slabs.give(slab);
    if (refusesDirect(error)) return false;
    throw error;
  }
  try {
    for (let offset = 0; offset < bytes.length; offset += limits.directSlabBytes) {
      const piece = bytes.subarray(offset, offset + limits.directSlabBytes);
      slab.set(piece);
      const padded = Math.ceil(piece.length / blockBytes) * blockBytes;
      slab.fill(0, piece.length, padded);
      for (let done = 0; done < padded;) {
        const { bytesWritten } = await writeAt(fd, slab, done, padded - done, offset + done);
        if (bytesWritten === 0) throw new Error(`the disk took none of ${padded - done} bytes`);
        done += bytesWritten;
      }
    }
    await truncate(fd, bytes.length);
    return true;
  } catch (error) {
    if (!refusesDirect(error)) throw error;
    await truncate(fd, 0);
    return false;
  } finally {
    slabs.give(slab);
    await closeFile(fd);
  }
}
