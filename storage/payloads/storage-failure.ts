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
 * store's: the point where the `storage_failed` alert (issue 15) hooks in, in the API's error
 * handler and where the dispatcher records a delivery's result.
 */
export function isStorageFailure(failure: unknown): boolean {
  if (failure instanceof StorageFailed) return true;
  const text = typeof failure === 'string' ? failure : failure instanceof Error ? failure.message : '';
  return /^S3 .+ failed: /.test(text);
}
