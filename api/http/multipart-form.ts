/**
 * What every multipart upload shares: how a part without a name is reported, and how the
 * reader's failures become answers. A body that is not well-formed multipart (busboy's errors
 * carry no code) and a form with too many parts are the client's mistakes: 400 INVALID_INPUT
 * naming what is wrong. Only a body above its size limit is 413 (docs/api/conventions.md#errors).
 */
import { isStorageFailure } from '../../storage/payloads/storage-failure.js';
import { ApiError } from '../errors.js';

/** The details key of a part sent without a name (`Content-Disposition: form-data` alone). */
export const unnamedPartKey = 'unnamed_part';

/** The part's name as a details key: its field name, or `unnamed_part`. */
export function partKey(fieldname: string | undefined): string {
  return fieldname === undefined || fieldname === '' ? unnamedPartKey : fieldname;
}

/** Puts a problem under a key, even `__proto__` or `constructor`, as an ordinary property. */
export function putProblem(problems: Record<string, string>, key: string, text: string): void {
  if (Object.prototype.hasOwnProperty.call(problems, key)) return;
  Object.defineProperty(problems, key, { value: text, enumerable: true, writable: true, configurable: true });
}

/** What the form has read so far, to name the field a count limit was reached on. */
export interface FormProgress {
  problems: Record<string, string>;
  /** Name of the last text part seen. */
  lastField?: string;
}

export interface FormLimits {
  files: number;
  /** The form's file field, named when it has too many files (the reader does not say which part overflowed). */
  fileField: string;
  fields: number;
  parts: number;
}

const limitCodes: Record<string, (limits: FormLimits, progress: FormProgress) => [string, string]> = {
  FST_FILES_LIMIT: (l) => [l.fileField, `Too many files: a form takes at most ${l.files}`],
  FST_FIELDS_LIMIT: (l, p) => [
    p.lastField ?? '_form',
    `Too many text parts: a form takes at most ${l.fields}`,
  ],
  FST_PARTS_LIMIT: (l, p) => [p.lastField ?? '_form', `Too many parts: a form takes at most ${l.parts}`],
};

/**
 * The answer for an error thrown while reading a form, or undefined when it is not the
 * form's fault (a size limit, a storage failure: the caller decides).
 */
export function formFailure(
  error: unknown,
  limits: FormLimits,
  progress: FormProgress,
): ApiError | undefined {
  if (error instanceof ApiError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && limitCodes[code]) {
    const [key, text] = limitCodes[code](limits, progress);
    const details = { ...progress.problems };
    putProblem(details, key, text);
    return new ApiError('INVALID_INPUT', 'Validation failed', details);
  }
  if (code === 'FST_PROTO_VIOLATION') {
    // The reader does not say which name: one of Object.prototype's.
    return new ApiError('INVALID_INPUT', 'Validation failed', {
      ...progress.problems,
      _form: 'A part is named after a built-in property (__proto__, constructor, toString…); rename it',
    });
  }
  if (typeof code === 'string' && code.startsWith('FST_')) return undefined;
  if (isStorageFailure(error)) return undefined;
  if (error instanceof Error && code === undefined) {
    return new ApiError('INVALID_INPUT', 'Invalid request body', {
      body: `The multipart form cannot be read: ${error.message}`,
    });
  }
  return undefined;
}
