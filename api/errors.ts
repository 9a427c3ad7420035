/**
 * Every error code of docs/api/conventions.md#errors, with its HTTP status and default message.
 * Code throws `new ApiError(code, …)`; the error handler turns it into the failure envelope.
 */

export const errorTable = {
  INVALID_INPUT: { status: 400, message: 'Validation failed' },
  MISSING_HEADER: { status: 400, message: 'The X-Requested-With header is required for uploads' },
  MISSING_TYPE: { status: 400, message: 'The query parameter type is required' },
  INVALID_TYPE: { status: 400, message: 'Unknown plugin type' },
  MISSING_AUTH_HEADER: { status: 401, message: 'Authorization header is required' },
  INVALID_AUTH_HEADER: { status: 401, message: 'Authorization header must be "Bearer <token>"' },
  INVALID_TOKEN: { status: 401, message: 'Invalid token' },
  TOKEN_EXPIRED: { status: 401, message: 'Token has expired' },
  FORBIDDEN: { status: 403, message: 'This action is not allowed' },
  INSUFFICIENT_ROLE: { status: 403, message: 'Your role does not allow this' },
  NOT_FOUND: { status: 404, message: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'The path does not take this method' },
  NOT_ACCEPTABLE: { status: 406, message: 'The payload cannot be given in the format asked for' },
  CONFLICT: { status: 409, message: 'A record with the same name exists' },
  CERTIFICATE_EXISTS: { status: 409, message: 'This certificate is already stored' },
  CERTIFICATE_IN_USE: { status: 409, message: 'The certificate is in use' },
  NOT_REDISPATCHABLE: { status: 409, message: 'The message cannot be dispatched again' },
  NOT_REDELIVERABLE: { status: 409, message: 'The delivery cannot be delivered again' },
  INVALID_STATE: { status: 409, message: 'The action is not possible in the current state' },
  AUDIT_KEY_REQUIRED: {
    status: 409,
    message: 'The audit log has hashed events; set AUDIT_KEY to verify it',
  },
  REQUEST_TIMEOUT: { status: 408, message: 'The request did not arrive in time' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Request body is too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported Content-Type' },
  HEADERS_TOO_LARGE: { status: 431, message: 'The request headers are larger than the server reads' },
  INTERNAL_ERROR: { status: 500, message: 'Internal server error' },
  START_FAILED: { status: 500, message: 'The instance failed to start' },
  SENDER_NOT_RUNNING: { status: 503, message: 'The AS2 sender is not running' },
  STORAGE_UNAVAILABLE: { status: 503, message: 'The payload store cannot be used; try again later' },
  NOT_READY: { status: 503, message: 'pier is starting or stopping; try again in a moment' },
  DATABASE_UNAVAILABLE: {
    status: 503,
    message:
      'The database does not answer (an outage or a failover); nothing was changed; try again in a moment',
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorTable;
export const errorCodes = Object.keys(errorTable) as ErrorCode[];

/** Details of a failure: for validation, one text per rejected property (`_form` for none). */
export type ErrorDetails = Record<string, unknown>;

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetails | undefined;
  /** Extra response headers, such as Accept on a 415. */
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message?: string, details?: ErrorDetails, headers?: Record<string, string>) {
    super(message ?? errorTable[code].message);
    this.name = 'ApiError';
    this.code = code;
    this.status = errorTable[code].status;
    this.details = details;
    this.headers = headers;
  }
}

/** A validation failure: 400 INVALID_INPUT, `Validation failed`, details keyed by property. */
export function validationError(details: Record<string, string>): ApiError {
  return new ApiError('INVALID_INPUT', errorTable.INVALID_INPUT.message, details);
}

/** An update whose body names another record than its path: 400 on `id`. */
export function refuseOtherId(what: string, bodyId: number | undefined, pathId: number): void {
  if (bodyId !== undefined && bodyId !== pathId) {
    throw validationError({ id: `Names ${what} ${bodyId}, but the path names ${pathId}` });
  }
}

export function notFound(what: string): ApiError {
  return new ApiError('NOT_FOUND', `${what} not found`);
}

export function conflict(message: string, details?: ErrorDetails): ApiError {
  return new ApiError('CONFLICT', message, details);
}
