/**
 * The SFTP operations the connectors use, as promises with the server's words in their errors,
 * and each bounded by the instance's timeout so a server that stops answering fails the
 * attempt rather than holding it. Paths are the server's: POSIX, `/` separators.
 */
import path from 'node:path';
import { Readable } from 'node:stream';
import type { SFTPWrapper, Stats } from 'ssh2';
import { limits } from '../../limits/limits.js';

/** SFTP status codes the connectors tell apart (draft-ietf-secsh-filexfer-02). */
export const sftpStatus = { noSuchFile: 2, permissionDenied: 3, failure: 4 } as const;

export class RemoteError extends Error {
  constructor(
    message: string,
    /** The SFTP status code, when the server answered with one. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'RemoteError';
  }
}

export interface RemoteEntry {
  /** Path below the listed directory, with `/`. */
  relative: string;
  size: number;
  /** Seconds since the epoch, as the server keeps them. */
  mtime: number;
}

/** Names writers use while a file is not complete (the rename protocol): never taken. */
export function inProgressName(name: string): boolean {
  return name.startsWith('.') || /\.(tmp|part|partial|filepart|crdownload)$/i.test(name);
}

export class Remote {
  constructor(
    readonly sftp: SFTPWrapper,
    private readonly timeoutMs: number,
  ) {}

  /** Runs one request; an answer that does not come within the timeout fails it. */
  #call<T>(
    what: string,
    run: (done: (error: Error | null | undefined, value?: T) => void) => void,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new RemoteError(`${what}: no answer within ${this.timeoutMs / 1000} s`)),
        this.timeoutMs,
      );
      run((error, value) => {
        clearTimeout(timer);
        if (error) {
          const code = (error as { code?: unknown }).code;
          reject(new RemoteError(`${what}: ${error.message}`, typeof code === 'number' ? code : undefined));
        } else resolve(value as T);
      });
    });
  }

  list(dir: string): Promise<{ filename: string; attrs: Stats }[]> {
    return this.#call(`Listing ${dir}`, (done) => this.sftp.readdir(dir, done));
  }

  stat(file: string): Promise<Stats> {
    return this.#call(`Reading the attributes of ${file}`, (done) => this.sftp.stat(file, done));
  }

  /** The attributes, or undefined when there is no such file. */
  async statIfAny(file: string): Promise<Stats | undefined> {
    try {
      return await this.stat(file);
    } catch (error) {
      if ((error as RemoteError).status === sftpStatus.noSuchFile) return undefined;
      throw error;
    }
  }

  /** Renames without replacing: OpenSSH's plain SFTP rename fails when `to` exists. */
  rename(from: string, to: string): Promise<void> {
    return this.#call(`Renaming ${from} to ${to}`, (done) => this.sftp.rename(from, to, done));
  }

  unlink(file: string): Promise<void> {
    return this.#call(`Removing ${file}`, (done) => this.sftp.unlink(file, done));
  }

  /** Removes a file that may not be there. */
  async unlinkIfAny(file: string): Promise<void> {
    try {
      await this.unlink(file);
    } catch (error) {
      if ((error as RemoteError).status !== sftpStatus.noSuchFile) throw error;
    }
  }

  /** Makes a directory and its parents, leaving existing ones alone. */
  async makeDirectory(dir: string): Promise<void> {
    if (dir === '/' || dir === '.') return;
    const found = await this.statIfAny(dir);
    if (found?.isDirectory()) return;
    if (found) throw new RemoteError(`${dir} exists and is not a directory`);
    await this.makeDirectory(path.posix.dirname(dir));
    try {
      await this.#call(`Making the directory ${dir}`, (done) => this.sftp.mkdir(dir, done));
    } catch (error) {
      // Made meanwhile by another delivery: fine.
      if (!(await this.statIfAny(dir))?.isDirectory()) throw error;
    }
  }

  /**
   * The files below `dir` (hidden directories and in-progress names left out), with the size and
   * time the listing reports, so one listing serves a look.
   */
  async walk(dir: string): Promise<RemoteEntry[]> {
    const out: RemoteEntry[] = [];
    const visit = async (current: string, prefix: string) => {
      let entries;
      try {
        entries = await this.list(current);
      } catch (error) {
        // A directory removed while we walk has no files to take.
        if (prefix !== '' && (error as RemoteError).status === sftpStatus.noSuchFile) return;
        throw error;
      }
      for (const { filename, attrs } of entries) {
        if (filename === '.' || filename === '..' || filename.startsWith('.')) continue;
        const relative = prefix ? `${prefix}/${filename}` : filename;
        if (attrs.isDirectory()) await visit(path.posix.join(current, filename), relative);
        else if (attrs.isFile() && !inProgressName(filename))
          out.push({ relative, size: attrs.size, mtime: attrs.mtime });
      }
    };
    await visit(dir, '');
    return out;
  }

  open(file: string, flags: 'r' | 'w' | 'wx'): Promise<Buffer> {
    return this.#call(`Opening ${file}`, (done) => this.sftp.open(file, flags, done));
  }

  close(handle: Buffer, file: string): Promise<void> {
    return this.#call(`Closing ${file}`, (done) => this.sftp.close(handle, done));
  }

  write(handle: Buffer, bytes: Buffer, position: number, file: string): Promise<void> {
    return this.#call(`Writing ${file}`, (done) =>
      this.sftp.write(handle, bytes, 0, bytes.length, position, (error) => done(error)),
    );
  }

  /** Asks the server to flush the file to its disk (OpenSSH's fsync extension), when it offers that. */
  async flush(handle: Buffer, file: string): Promise<boolean> {
    const sftp = this.sftp as SFTPWrapper & {
      ext_openssh_fsync?: (h: Buffer, cb: (error?: Error | null) => void) => void;
    };
    if (!sftp.ext_openssh_fsync) return false;
    try {
      await this.#call(`Flushing ${file}`, (done) => sftp.ext_openssh_fsync!(handle, (error) => done(error)));
      return true;
    } catch (error) {
      // A server without the extension says so; any other failure is the attempt's.
      if (/not supported|unsupported/i.test((error as Error).message)) return false;
      throw error;
    }
  }

  /**
   * A stream of the first `size` bytes of the file, read with requests pipelined: one request at
   * a time (ssh2's read stream) made a 10 MiB file 320 round trips in a row. A short read
   * leaves the stream shorter than `size`, which the caller's size check catches.
   */
  read(file: string, size: number): Readable {
    return Readable.from(this.#pieces(file, size), { objectMode: false });
  }

  async *#pieces(file: string, size: number): AsyncGenerator<Buffer> {
    const handle = await this.open(file, 'r');
    const pending: Promise<Buffer>[] = [];
    let next = 0;
    const issue = () => {
      const position = next;
      const length = Math.min(limits.sftpReadPieceBytes, size - position);
      next += length;
      pending.push(this.#readPiece(handle, position, length, file));
    };
    try {
      while (next < size && pending.length < limits.sftpMaxReadsInFlight) issue();
      while (pending.length > 0) {
        const piece = await pending.shift()!;
        if (next < size) issue();
        yield piece;
      }
    } finally {
      await Promise.allSettled(pending);
      await this.close(handle, file).catch(() => {});
    }
  }

  #readPiece(handle: Buffer, position: number, length: number, file: string): Promise<Buffer> {
    return this.#call(`Reading ${file}`, (done) =>
      this.sftp.read(handle, Buffer.alloc(length), 0, length, position, (error, bytesRead, buffer) =>
        done(error, error ? undefined : buffer.subarray(0, bytesRead)),
      ),
    );
  }
}
