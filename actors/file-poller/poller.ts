/**
 * The file poller's logic, with its ports as arguments so it runs without a thread in
 * tests. A file is taken when it is fully written: seen with the same size, time and inode
 * in two looks at the directory (or not modified for a whole polling interval), and not
 * named like a file in the making. Its bytes are kept (a small file inline with its record,
 * a larger one in the payload store), the core accepts the message, and only then is the
 * file moved to processed_directory. A file whose path names no parties becomes a Refused
 * message, so nothing is lost and the operator sees why. While the store cannot take files (full,
 * read-only), a look tries one file that needs the store and leaves the rest for later: the
 * core hears of the failure once (StoreHealth), and the log gets no line per file.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { SourceCore } from '../shared/acceptance-port.js';
import { type PayloadRef, type PayloadStore } from '../../storage/payloads/store.js';
import { keepBytes, type KeptStage } from '../../storage/payloads/inline.js';
import { isStoreUnwritable } from '../../storage/payloads/storage-failure.js';
import { AcceptFailed, FileAcceptance } from '../shared/file-acceptance.js';
import { UncertainStages, type StoredOf } from '../shared/uncertain-stages.js';
import { Directories } from '../shared/directories.js';
import { StoreHealth } from '../shared/store-health.js';
import { globMatcher, pathMatcher } from '../shared/path-pattern.js';
import { envelopeOf } from '../shared/edi-envelope.js';
import { HoldBack } from '../shared/hold-back.js';
import type { FilePollerSettings } from './config.js';
import { listFiles, moveAside } from './files.js';
import { limits } from '../../limits/limits.js';

interface Seen {
  size: bigint;
  mtimeNs: bigint;
  ino: bigint;
}

const same = (a: Seen, b: Seen) => a.size === b.size && a.mtimeNs === b.mtimeNs && a.ino === b.ino;

export class FilePoller {
  #seen = new Map<string, Seen>();
  readonly #directories = new Directories();
  readonly #health: StoreHealth;
  #halted = false;
  /** The targets' backlog as the last acceptance reported it. */
  readonly #holdBack = new HoldBack(limits.filePollerMaxQueuedDeliveries);
  readonly #acceptance: FileAcceptance;
  /** Acceptance failed (the database is away): the rest of the look is left for the next one. */
  #lookFailed = false;
  readonly #matchPath: ReturnType<typeof pathMatcher>;
  readonly #matchName: (name: string) => boolean;

  constructor(
    private readonly settings: FilePollerSettings,
    private readonly store: PayloadStore,
    private readonly core: SourceCore,
    /** Which messages are stored (acceptance-port.ts); the stages of an uncertain acceptance wait for it. */
    storedOf: StoredOf = async () => null,
    /** Whether this thread takes a file (share.ts): every file unless the poller runs on several threads. */
    private readonly mine: (rel: string) => boolean = () => true,
  ) {
    this.#matchPath = pathMatcher(settings.path_pattern);
    this.#matchName = globMatcher(settings.file_pattern);
    this.#health = new StoreHealth(core);
    this.#acceptance = new FileAcceptance(core, new UncertainStages(store, storedOf));
  }

  /** One look at the directory; takes every file that was already there, unchanged, last time. */
  async scan(): Promise<number> {
    const files = (await listFiles(this.settings.base_directory)).filter(
      (rel) => this.#matchName(path.posix.basename(rel)) && this.mine(rel),
    );
    const now = new Map<string, Seen>();
    const ready: [string, Seen][] = [];
    const settled = BigInt(Date.now() - this.settings.polling_interval * 1000) * 1_000_000n;
    for (const rel of files) {
      const st = await stat(path.join(this.settings.base_directory, rel), { bigint: true }).catch(
        () => undefined,
      );
      if (!st) continue;
      const seen = { size: st.size, mtimeNs: st.mtimeNs, ino: st.ino };
      const before = this.#seen.get(rel);
      // Complete: unchanged since the last look, or untouched for a whole polling interval.
      if ((before && same(before, seen)) || seen.mtimeNs <= settled) ready.push([rel, seen]);
      else now.set(rel, seen);
    }
    this.#seen = now;
    let taken = 0;
    let next = 0;
    /** Files this look tried in a store that was failing: one at most, to see whether it works again. */
    let tries = 0;
    this.#lookFailed = false;
    // A pool of takers: each takes the next ready file until none is left, holding back
    // while the targets are far behind.
    const taker = async () => {
      while (next < ready.length && !this.#halted && !this.#lookFailed) {
        if (this.#holdBack.behind) {
          await this.#holdBack.wait(() => this.#halted);
          continue;
        }
        const [rel, seen] = ready[next++]!;
        if (this.#health.failing && seen.size > BigInt(limits.inlineMaxBytes) && tries++ > 0) {
          this.#seen.set(rel, seen);
          continue;
        }
        if (await this.#take(rel, seen)) taken++;
        // Not taken (it changed, or acceptance failed): ready again at the next look.
        else this.#seen.set(rel, seen);
      }
    };
    await Promise.all(Array.from({ length: limits.filePollerConcurrentTakes }, taker));
    return taken;
  }

  /** Takes no more files; the ones being taken finish. */
  halt(): void {
    this.#halted = true;
  }

  /** A small file is read and kept inline; a larger one is copied into the store. */
  async #keep(ref: PayloadRef, full: string, size: bigint): Promise<KeptStage> {
    if (size <= BigInt(limits.inlineMaxBytes)) return keepBytes(this.store, ref, await readFile(full));
    if (this.store.putFile) return { size_bytes: await this.store.putFile(ref, full) };
    return {
      size_bytes: await this.store.put(
        ref,
        createReadStream(full, { highWaterMark: limits.streamSliceBytes }),
      ),
    };
  }

  #storeDirectory(): string | undefined {
    const selection = this.store.selection;
    return selection.backend === 'local' ? selection.directory : undefined;
  }

  async #take(rel: string, seen: Seen): Promise<boolean> {
    const full = path.join(this.settings.base_directory, rel);
    const values = this.#matchPath(rel);
    const from = values?.from ?? this.settings.from;
    const to = values?.to ?? this.settings.to;
    const fileName = values?.filename ?? path.posix.basename(rel);
    const id = randomUUID();
    try {
      const ref = { messageId: id, stage: 'unpacked' as const };
      const kept = await this.#keep(ref, full, seen.size);
      if (kept.content === undefined) this.#health.worked();
      if (BigInt(kept.size_bytes) !== seen.size) {
        // Changed while read: look again next time.
        await this.store.removeMessage(id);
        return false;
      }
      const edi =
        this.settings.read_edi_envelope !== false && values
          ? await envelopeOf({
              content: kept.content,
              open: async () => createReadStream(full, { highWaterMark: limits.streamSliceBytes }),
            })
          : undefined;
      const answer = await this.#acceptance.accept({
        id,
        from,
        to,
        ...(edi ? { edi } : {}),
        file_name: fileName,
        // The path last, so the separators cannot be ambiguous.
        source_key: `${seen.size}:${seen.mtimeNs}:${seen.ino}:${rel}`,
        payload: { stage: 'unpacked', ...kept },
        ...(values
          ? {}
          : { refusal: `Refused: the path ${rel} does not match ${this.settings.path_pattern}` }),
      });
      this.#holdBack.tell(answer.queued);
      if (answer.removable) await this.store.removeMessage(id);
      await moveAside(
        full,
        path.join(this.settings.processed_directory, rel),
        answer.message_id.slice(0, 8),
        this.#directories,
      );
      return true;
    } catch (error) {
      // An acceptance the database failed may have committed: its stages wait (file-acceptance.ts).
      if (!(error instanceof AcceptFailed)) await this.store.removeMessage(id).catch(() => {});
      if (isStoreUnwritable(error, this.#storeDirectory())) {
        this.#health.failed(error instanceof Error ? error.message : String(error));
        return false;
      }
      if (this.#acceptance.failed(error)) {
        this.#lookFailed = true;
        return false;
      }
      this.core.log('warn', 'could not take a file; it stays for the next look', {
        file: rel,
        error: error instanceof Error ? error.message : String(error),
      });
      return false;
    }
  }
}
