/**
 * A failure of the payload store, told apart from any other: the class the S3 store throws, and
 * a test that also reads it back from the `last_error` text an actor reported. Its own module, so
 * the dispatcher can ask without loading the AWS SDK into every process.
 */

/** A failed call of the S3 store; the message names the operation, the key and the problem. */
export class StorageFailed extends Error {
  constructor(
    readonly operation: string,
    readonly problem: string,
    /** The HTTP status the service answered with, when it answered. */
    readonly status?: number,
  ) {
    super(`S3 ${operation} failed: ${problem}`);
    this.name = 'StorageFailed';
  }
}

/**
 * Whether a failure (an error, or the `last_error` text an actor reported) is the payload
 * store's: the point where the `storage_failed` alert (docs/alerts.md) hooks in, in the API's error
 * handler and where the dispatcher records a delivery's result.
 */
export function isStorageFailure(failure: unknown): boolean {
  if (failure instanceof StorageFailed) return true;
  const text = typeof failure === 'string' ? failure : failure instanceof Error ? failure.message : '';
  return /^S3 .+ failed: /.test(text);
}

/** Errors of a file system that is full or cannot be written: about the store, whichever file was being kept. */
const unwritable = new Set(['ENOSPC', 'EDQUOT', 'EROFS']);
/**
 * Errors that are the store's only when they name a path inside it (else the file being read):
 * a refusal, or a message directory that cannot be made because the store's own is gone.
 */
const refused = new Set(['EACCES', 'EPERM', 'ENOENT']);

/**
 * Whether an error of writing into the payload store means the store cannot take stages now
 * (an S3 failure, a full or read-only directory, one pier may not write to), as opposed to a
 * problem of the one thing being stored. `directory` is the local store's, when it is local.
 */
export function isStoreUnwritable(error: unknown, directory?: string): boolean {
  if (isStorageFailure(error)) return true;
  const e = error as NodeJS.ErrnoException;
  if (typeof e?.code !== 'string') return false;
  if (unwritable.has(e.code)) return true;
  if (!refused.has(e.code) || directory === undefined) return false;
  // copyFile's refusal names both files without saying which; a store pier may not write to
  // is refused earlier anyway, when the message's directory is made in it.
  if (e.syscall === 'copyfile') return false;
  return typeof e.path === 'string' && (e.path === directory || e.path.startsWith(`${directory}/`));
}
