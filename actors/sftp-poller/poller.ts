/**
 * The SFTP poller's logic, with its ports as arguments so it runs without a thread in tests.
 * Each look lists remote_directory; a file is taken when two looks in a row saw the same size
 * and time (a file still being uploaded changes between them) and it is not named like a file
 * in the making. Its bytes are kept (inline or in the payload store), read again to the end and
 * compared, and the core accepts the message under a key made of the file's path, size, time and
 * SHA-256; only then is the file moved to processed_directory or deleted on the server. A crash
 * (kill -9) between the acceptance and the move leaves the file where it was: the next look
 * offers it under the same key, the core answers that it has it (no second message), and the
 * move is done then. So each complete file becomes exactly one message.
 */
import { createHash, randomUUID } from 'node:crypto';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { SourceCore } from '../shared/acceptance-port.js';
import type { PayloadStore } from '../../storage/payloads/store.js';
import { keepStream } from '../../storage/payloads/inline.js';
import { AcceptFailed, FileAcceptance } from '../shared/file-acceptance.js';
import { UncertainStages, type StoredOf } from '../shared/uncertain-stages.js';
import { globMatcher, pathMatcher } from '../shared/path-pattern.js';
import { SftpConnectError } from '../sftp-shared/connect.js';
import { RemoteError, type Remote, type RemoteEntry } from '../sftp-shared/remote.js';
import type { SessionKeeper } from '../sftp-shared/session-keeper.js';
import type { SftpPollerSettings } from './config.js';
import { limits } from '../../limits/limits.js';

interface Seen {
  size: number;
  mtime: number;
}

/** `invoice.xml` → `invoice.1a2b3c4d.xml`, for a processed name that is taken. */
function renamed(file: string, messageId: string): string {
  const ext = path.posix.extname(file);
  return `${file.slice(0, file.length - ext.length)}.${messageId.slice(0, 8)}${ext}`;
}

export class SftpPoller {
  #seen = new Map<string, Seen>();
  #halted = false;
  readonly #acceptance: FileAcceptance;
  /** Acceptance failed (the database is away): the rest of the look is left for the next one. */
  #lookFailed = false;
  readonly #matchPath: ReturnType<typeof pathMatcher>;
  readonly #matchName: (name: string) => boolean;

  constructor(
    private readonly settings: SftpPollerSettings,
    private readonly store: PayloadStore,
    private readonly core: SourceCore,
    private readonly sessions: SessionKeeper,
    /** Which messages are stored (acceptance-port.ts); the stages of an uncertain acceptance wait for it. */
    storedOf: StoredOf = async () => null,
  ) {
    this.#matchPath = pathMatcher(settings.path_pattern);
    this.#matchName = globMatcher(settings.file_pattern);
    this.#acceptance = new FileAcceptance(core, new UncertainStages(store, storedOf));
  }

  /** One look at the remote directory; takes every file that was already there, unchanged, last time. */
  async scan(): Promise<number> {
    let remote: Remote;
    let files: RemoteEntry[];
    try {
      remote = await this.sessions.remote();
      files = (await remote.walk(this.settings.remote_directory)).filter((f) =>
        this.#matchName(path.posix.basename(f.relative)),
      );
    } catch (error) {
      this.#dropIfBroken(error);
      throw error;
    }
    const now = new Map<string, Seen>();
    const ready: RemoteEntry[] = [];
    for (const file of files) {
      const before = this.#seen.get(file.relative);
      if (before && before.size === file.size && before.mtime === file.mtime) ready.push(file);
      else now.set(file.relative, { size: file.size, mtime: file.mtime });
    }
    this.#seen = now;
    this.#lookFailed = false;
    let taken = 0;
    let next = 0;
    const taker = async () => {
      while (next < ready.length && !this.#halted && !this.#lookFailed) {
        const file = ready[next++]!;
        if (await this.#take(remote, file)) taken++;
        // Not taken (it changed, or something failed): ready again at the next look.
        else this.#seen.set(file.relative, { size: file.size, mtime: file.mtime });
      }
    };
    await Promise.all(Array.from({ length: limits.sftpPollerConcurrentTakes }, taker));
    return taken;
  }

  /** Takes no more files; the ones being taken finish. */
  halt(): void {
    this.#halted = true;
  }

  /** A failure of the connection (not an answer of the server) ends the session and the look. */
  #dropIfBroken(error: unknown): boolean {
    if (error instanceof SftpConnectError || (error instanceof RemoteError && error.status !== undefined))
      return false;
    this.sessions.discard();
    return true;
  }

  async #take(remote: Remote, file: RemoteEntry): Promise<boolean> {
    const full = path.posix.join(this.settings.remote_directory, file.relative);
    const values = this.#matchPath(file.relative);
    const id = randomUUID();
    try {
      const hash = createHash('sha256');
      const source = remote.read(full, file.size);
      const hashed = Readable.from(
        (async function* () {
          for await (const chunk of source as AsyncIterable<Buffer>) {
            hash.update(chunk);
            yield chunk;
          }
        })(),
        { objectMode: false },
      );
      const kept = await keepStream(this.store, { messageId: id, stage: 'unpacked' }, hashed);
      const after = await remote.stat(full);
      if (kept.size_bytes !== file.size || after.size !== file.size || after.mtime !== file.mtime) {
        // Changed while read: look again next time.
        await this.store.removeMessage(id);
        return false;
      }
      const answer = await this.#acceptance.accept({
        id,
        from: values?.from ?? this.settings.from,
        to: values?.to ?? this.settings.to,
        file_name: values?.filename ?? path.posix.basename(file.relative),
        // The path last, so the separators cannot be ambiguous.
        source_key: `${file.size}:${file.mtime}:${hash.digest('hex')}:${file.relative}`,
        payload: { stage: 'unpacked', ...kept },
        ...(values
          ? {}
          : { refusal: `Refused: the path ${file.relative} does not match ${this.settings.path_pattern}` }),
      });
      if (answer.removable) await this.store.removeMessage(id);
      await this.#putAway(remote, full, file.relative, answer.message_id);
      return true;
    } catch (error) {
      // An acceptance the database failed may have committed: its stages wait (file-acceptance.ts).
      if (!(error instanceof AcceptFailed)) await this.store.removeMessage(id).catch(() => {});
      if (this.#acceptance.failed(error)) {
        this.#lookFailed = true;
        return false;
      }
      if (this.#dropIfBroken(error)) this.#lookFailed = true;
      this.core.log('warn', 'could not take a file; it stays on the server for the next look', {
        file: file.relative,
        error: error instanceof Error ? error.message : String(error),
      });
      return false;
    }
  }

  /** Moves a taken file to processed_directory (never over another file) or deletes it. */
  async #putAway(remote: Remote, full: string, relative: string, messageId: string): Promise<void> {
    if (this.settings.after_take === 'delete') return remote.unlinkIfAny(full);
    const target = path.posix.join(this.settings.processed_directory, relative);
    await remote.makeDirectory(path.posix.dirname(target));
    for (const candidate of [target, renamed(target, messageId)]) {
      try {
        await remote.rename(full, candidate);
        return;
      } catch (error) {
        // Gone already: another poller on the same directory moved it.
        if (!(await remote.statIfAny(full))) return;
        if (!(await remote.statIfAny(candidate))) throw error;
      }
    }
    throw new RemoteError(`Cannot move ${full}: ${target} and its renamed form are taken`);
  }
}
