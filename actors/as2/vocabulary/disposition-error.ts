/**
 * A failure while receiving an AS2 message, carrying the MDN modifier the partner is told.
 * Separate from the API's errors: these never become HTTP error bodies, they become MDNs.
 * `message` is for pier's log and history; the partner only ever sees the modifier.
 */
import { CmsError } from '../../../pki/cms/cms-error.js';
import {
  failedWithFailure,
  processedWithError,
  type Disposition,
  type ErrorModifier,
  type FailureModifier,
} from './dispositions.js';

export class DispositionError extends Error {
  /** Errors that cross a worker thread lose their class; decisions read this code instead. */
  readonly code = 'AS2_DISPOSITION';
  readonly disposition: Disposition;

  constructor(
    readonly modifier: ErrorModifier | FailureModifier,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DispositionError';
    this.disposition = isFailureModifier(modifier)
      ? failedWithFailure(modifier)
      : processedWithError(modifier);
  }

  /** The plain object that survives postMessage; `fromJSON` turns it back into an error. */
  toJSON(): { code: 'AS2_DISPOSITION'; modifier: ErrorModifier | FailureModifier; message: string } {
    return { code: this.code, modifier: this.modifier, message: this.message };
  }

  static fromJSON(value: { modifier: ErrorModifier | FailureModifier; message: string }): DispositionError {
    return new DispositionError(value.modifier, value.message);
  }
}

const failureModifierNames = new Set<string>([
  'unsupported format',
  'unsupported MIC-algorithms',
  'sender-equals-receiver',
] satisfies FailureModifier[]);

function isFailureModifier(modifier: string): modifier is FailureModifier {
  return failureModifierNames.has(modifier);
}

export function isDispositionError(error: unknown): error is DispositionError {
  return error instanceof DispositionError;
}

/**
 * Runs one step of unpacking and turns whatever it throws into a DispositionError with the
 * step's modifier, so a parser bug or damaged input never escapes as an uncaught exception.
 * A DispositionError from a deeper step keeps its own modifier.
 */
export function failingAs<T>(modifier: ErrorModifier, what: string, step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (error instanceof DispositionError) throw error;
    if (error instanceof CmsError) throw dispositionOf(error);
    const reason = error instanceof Error ? error.message : String(error);
    throw new DispositionError(modifier, `${what}: ${reason}`, { cause: error });
  }
}

/**
 * Runs a call into the CMS library (pki/cms) and turns its CmsError into the DispositionError
 * of the same modifier: the library names its failures as AS2 does, without knowing of MDNs.
 */
export function fromCms<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    throw error instanceof CmsError ? dispositionOf(error) : error;
  }
}

function dispositionOf(error: CmsError): DispositionError {
  return new DispositionError(error.failure, error.message, { cause: error });
}
