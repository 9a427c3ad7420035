/**
 * Writing one delivery as a file: to a temporary file in the writer's hidden `.pier-tmp`
 * directory (temporaries.ts), flushed, then linked to its real name, which fails rather than replace a file that is
 * there. The same content already there counts as delivered (a delivery repeated after a
 * crash); other content is refused, or written under a new name when `if_exists` is rename.
 */
import { closeSync, fdatasync, linkSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import type { ClaimedDelivery, DeliveryOutcome } from '../../protocol/core-protocol.js';
import { PayloadMissing, type PayloadRef, type PayloadStore } from '../../storage/payloads/store.js';
import { writeDirect } from '../../storage/payloads/direct-write.js';
import { inlineBytes, openKept } from '../../storage/payloads/inline.js';
import { asJson, formattedName, NotTranslatable } from '../shared/delivery-format.js';
import { Directories } from '../shared/directories.js';
import { fillPattern } from '../shared/path-pattern.js';
import type { FileWriterSettings } from './config.js';
import { removeEarlierAttempts, temporaryPath } from './temporaries.js';
import { limits } from '../../limits/limits.js';

const flush = promisify(fdatasync);

/**
 * A payload in memory (inline, or handed over whole) into a new file, flushed. Opening, writing
 * (into the page cache) and closing are done synchronously on the actor's own thread; only the
 * flush, which waits for the disk, goes to libuv's thread pool, so the flushes of several
 * deliveries still overlap. Through fs/promises each of the four steps was a trip to the pool,
 * whose threads were the receive path's largest CPU share after RSA
 * (benchmarks/history/2026-11-22-no-sequential-scans-and-one-pool-trip-per-written-file.md); all
 * four done synchronously cost less CPU but queued every flush behind the one before, and a
 * backlog of files went out slower (file-flow: 631 and 677 files/s against 1,067 and 749).
 */
async function writeInHand(temp: string, bytes: Uint8Array): Promise<void> {
  const fd = openSync(temp, 'wx');
  try {
    // A large one straight to the disk (direct-write.ts), in libuv's pool: it waits for the disk.
    if (!(await writeDirect(temp, bytes))) writeSync(fd, bytes);
    await flush(fd);
  } finally {
    closeSync(fd);
  }
}

/** True when the two files hold the same bytes. */
export async function sameContent(a: string, b: string): Promise<boolean> {
  const [sa, sb] = await Promise.all([stat(a), stat(b)]);
  if (sa.size !== sb.size) return false;
  const [fa, fb] = await Promise.all([open(a, 'r'), open(b, 'r')]);
  try {
    const ba = Buffer.alloc(limits.compareChunkBytes);
    const bb = Buffer.alloc(limits.compareChunkBytes);
    for (let pos = 0; pos < sa.size; pos += limits.compareChunkBytes) {
      const [ra, rb] = await Promise.all([
        fa.read(ba, 0, limits.compareChunkBytes, pos),
        fb.read(bb, 0, limits.compareChunkBytes, pos),
      ]);
      if (ra.bytesRead !== rb.bytesRead || !ba.subarray(0, ra.bytesRead).equals(bb.subarray(0, rb.bytesRead)))
        return false;
    }
    return true;
  } finally {
    await Promise.all([fa.close(), fb.close()]);
  }
}

/** `invoice.xml` → `invoice.1a2b3c4d.xml`: a name of its own for a message's file. */
function renamed(file: string, messageId: string): string {
  const ext = path.extname(file);
  return `${file.slice(0, file.length - ext.length)}.${messageId.slice(0, 8)}${ext}`;
}

export class FileWriter {
  readonly #directories = new Directories();

  constructor(
    private readonly settings: FileWriterSettings,
    private readonly store: PayloadStore,
  ) {}

  /**
   * The payload into a new temporary file, flushed to disk before it gets its real name:
   * written from memory when the stage is kept inline or its bytes were handed over (`bytes`),
   * copied by the kernel when the store is local and keeps the stage as its bytes, streamed
   * otherwise.
   */
  async writeTemp(
    ref: PayloadRef,
    content: string | undefined,
    temp: string,
    bytes?: Uint8Array,
  ): Promise<void> {
    const dir = path.dirname(temp);
    if (this.settings.format === 'json') {
      const json = await asJson(() => openKept(this.store, ref, content));
      const file = await this.#directories.within(dir, () => open(temp, 'wx'));
      try {
        await pipeline(
          Readable.from(json),
          file.createWriteStream({ flush: true, highWaterMark: limits.streamSliceBytes }),
        );
      } catch (error) {
        await file.close().catch(() => {});
        throw error;
      }
      return;
    }
    if (bytes !== undefined) {
      await this.#directories.within(dir, () => writeInHand(temp, bytes));
      return;
    }
    // A stage the store cannot copy as a file (kept deflated) is streamed below.
    if (content === undefined && this.store.copyToFile) {
      if (await this.#directories.within(dir, () => this.store.copyToFile!(ref, temp))) return;
    }
    if (content !== undefined) {
      const inline = inlineBytes(content);
      // A directory removed meanwhile fails the open; `within` makes it again and retries.
      await this.#directories.within(dir, () => writeInHand(temp, inline));
      return;
    }
    // The temporary file first: a directory removed meanwhile fails here, before the payload is read.
    const file = await this.#directories.within(dir, () => open(temp, 'wx'));
    try {
      await pipeline(
        await this.store.open(ref),
        file.createWriteStream({ flush: true, highWaterMark: limits.streamSliceBytes }),
      );
    } catch (error) {
      await file.close().catch(() => {});
      throw error;
    }
  }

  /** Where a message's file goes: its path below the directory, and in full. */
  placeOf(m: { from: string; to: string; file_name: string; id: string }): {
    relative: string;
    final: string;
  } {
    const relative = fillPattern(this.settings.path_pattern, {
      from: m.from,
      to: m.to,
      filename: formattedName(m.file_name, this.settings.format),
      id: m.id,
    });
    return { relative, final: path.join(this.settings.directory, relative) };
  }

  /** Gives the temporary file the name `final`, making its directory when it is missing (or removed meanwhile). */
  linkTo(temp: string, final: string): Promise<void> {
    return this.#directories.within(path.dirname(final), async () => linkSync(temp, final));
  }

  async deliver(delivery: ClaimedDelivery): Promise<DeliveryOutcome> {
    const { settings } = this;
    const m = delivery.message;
    const { relative, final } = this.placeOf(m);
    // Claimed again: an earlier attempt, or a hand-off whose file never got its name, may have
    // died between writing and cleaning up.
    if (delivery.attempt > 1) await removeEarlierAttempts(settings.directory, delivery.delivery_id, m.id);
    const temp = temporaryPath(settings.directory, delivery.delivery_id);
    try {
      await this.writeTemp(
        { messageId: m.id, stage: delivery.payload.stage },
        delivery.payload.content,
        temp,
      );
    } catch (error) {
      removeQuietly(temp);
      if (error instanceof PayloadMissing || error instanceof NotTranslatable)
        return { ok: false, retryable: false, error: error.message };
      throw error;
    }
    // Linking and removing the temporary name are done synchronously, on the actor's own
    // thread, like opening and closing the file (writeInHand): each is a directory update in the
    // page cache, and through fs/promises each was a trip to libuv's thread pool and back.
    try {
      for (const candidate of [final, renamed(final, m.id)]) {
        try {
          await this.linkTo(temp, candidate);
          return { ok: true, detail: `Written to ${path.relative(settings.directory, candidate)}` };
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
        if (await sameContent(temp, candidate)) {
          return { ok: true, detail: `Already there: ${path.relative(settings.directory, candidate)}` };
        }
        if (settings.if_exists === 'fail') {
          return { ok: false, retryable: true, error: `${relative} exists with other content` };
        }
      }
      return {
        ok: false,
        retryable: true,
        error: `${relative} and ${path.basename(renamed(final, m.id))} exist with other content`,
      };
    } finally {
      removeQuietly(temp);
    }
  }
}

/** Removes a temporary file; one left behind is removed when the writer starts (temporaries.ts). */
export function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // gone already, or the directory with it
  }
}
