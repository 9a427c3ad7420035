/**
 * Why a CMS structure could not be opened or verified. The names are the AS2 disposition
 * modifiers (RFC 4130 §7.4.3) such a failure becomes, so the AS2 layer turns a CmsError into
 * what the partner is told without a table of its own; this library knows nothing of MDNs.
 */
export type CmsFailure =
  'decryption-failed' | 'integrity-check-failed' | 'authentication-failed' | 'decompression-failed';

export class CmsError extends Error {
  /** Errors that cross a worker thread lose their class; decisions read this code instead. */
  readonly code = 'CMS_FAILURE';

  constructor(
    readonly failure: CmsFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CmsError';
  }
}

/**
 * Runs one step of reading a CMS structure and turns whatever it throws into a CmsError with
 * the step's failure, so damaged input never escapes as a parser's own exception. A CmsError
 * from a deeper step keeps its own failure.
 */
export function failingWith<T>(failure: CmsFailure, what: string, step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (error instanceof CmsError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new CmsError(failure, `${what}: ${reason}`, { cause: error });
  }
}
