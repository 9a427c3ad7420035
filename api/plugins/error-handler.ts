/**
 * The one place errors become the failure envelope. Foreign errors (fastify's own, the ORM's)
 * are translated by one table; anything unknown is a 500 whose cause is logged, never sent.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { z } from 'zod';
import { ApiError, errorTable } from '../errors.js';
import { fromRuntimeError } from '../runtime-errors.js';
import { detailsFromZod } from '../validation.js';
import { isDatabaseAway } from '../../storage/outage-log.js';
import { limits } from '../../limits/limits.js';

const oneMiB = 1024 * 1024;

/** How a 413 names the limit, for fastify's own refusal and for bodies a route reads itself. */
export function describeLimit(bytes: number | undefined): string {
  if (!bytes) return 'Request body is too large';
  return `Request body is larger than the limit of ${bytes % oneMiB === 0 ? `${bytes / oneMiB} MiB` : `${bytes} bytes`}`;
}

/** fastify's own error codes and what they mean to a client. */
function translateFastifyError(error: FastifyError, request: FastifyRequest): ApiError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
      return new ApiError('PAYLOAD_TOO_LARGE', describeLimit(request.routeOptions.bodyLimit));
    // Too many parts is not too many bytes (docs/api/conventions.md#errors keeps 413 for size); the upload readers name the field.
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return new ApiError('INVALID_INPUT', 'Validation failed', {
        _form: `Too many parts: ${error.message}`,
      });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('INVALID_INPUT', 'Invalid request body', { body: error.message });
    default:
      if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
        return new ApiError('INVALID_INPUT', 'Invalid request', { _form: error.message });
      }
      return undefined;
  }
}

export function toApiError(error: unknown, request: FastifyRequest): ApiError | undefined {
  if (error instanceof ApiError) return error;
  const refusal = fromRuntimeError(error);
  if (refusal) return refusal;
  if (error instanceof z.ZodError) return new ApiError('INVALID_INPUT', undefined, detailsFromZod(error));
  // The database away (a failover, a restart): nothing was committed, so the caller may retry.
  if (isDatabaseAway(error))
    return new ApiError('DATABASE_UNAVAILABLE', undefined, undefined, {
      'retry-after': String(limits.databaseRetryAfterSeconds),
    });
  if (error instanceof UniqueConstraintViolationException) {
    return new ApiError('CONFLICT');
  }
  if (error && typeof error === 'object' && 'code' in error && typeof error.code === 'string') {
    return translateFastifyError(error as FastifyError, request);
  }
  return undefined;
}

export function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  if (error.headers) reply.headers(error.headers);
  const body: { code: string; message: string; details?: Record<string, unknown> } = {
    code: error.code,
    message: error.message,
  };
  if (error.details && Object.keys(error.details).length > 0) body.details = error.details;
  return reply.code(error.status).send({ data: null, error: body });
}

/** The methods served on a path, to answer 405 with Allow rather than 404 (empty: no such path). */
export type AllowedMethods = (path: string) => string[];

/** The methods each registered route pattern serves, as a lookup by concrete path. */
export function allowedMethodsOf(routes: { method: string; url: string }[]): AllowedMethods {
  const patterns = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  for (const route of routes) {
    if (route.url === '*' || route.method === 'OPTIONS') continue;
    const source = route.url
      .replace(/\/+$/, '')
      .split('/')
      .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    const entry = patterns.get(source) ?? { pattern: new RegExp(`^${source}/?$`), methods: new Set() };
    entry.methods.add(route.method);
    patterns.set(source, entry);
  }
  return (path) => {
    const methods = new Set<string>();
    for (const { pattern, methods: served } of patterns.values())
      if (pattern.test(path)) served.forEach((m) => methods.add(m));
    return [...methods].sort();
  };
}

export function installErrorHandling(app: FastifyInstance, allowed: AllowedMethods = () => []): void {
  app.setErrorHandler((error, request, reply) => {
    const known = toApiError(error, request);
    if (known?.code === 'DATABASE_UNAVAILABLE')
      request.log.warn(
        { err: error, user: request.caller?.actor ?? 'anonymous' },
        'the database does not answer',
      );
    if (known?.code === 'STORAGE_UNAVAILABLE') {
      // The caller is told what failed; the operator hears of it in the log as well.
      request.log.warn(
        { err: error, user: request.caller?.actor ?? 'anonymous' },
        'the payload store failed',
      );
    }
    if (known) return sendError(reply, known);
    request.log.error({ err: error, user: request.caller?.actor ?? 'anonymous' }, 'request failed');
    return sendError(reply, new ApiError('INTERNAL_ERROR', errorTable.INTERNAL_ERROR.message));
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const methods = allowed(path);
    if (methods.length > 0) {
      return sendError(
        reply,
        new ApiError(
          'METHOD_NOT_ALLOWED',
          `${path} does not take ${request.method}; it takes ${methods.join(', ')}`,
          undefined,
          {
            Allow: methods.join(', '),
          },
        ),
      );
    }
    return sendError(reply, new ApiError('NOT_FOUND', `No route ${request.method} ${path}`));
  });
}
