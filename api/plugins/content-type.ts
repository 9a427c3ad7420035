/**
 * The Content-Type rules of docs/api/conventions.md#request-headers: body-changing requests say what they send, and JSON
 * bodies are parsed here so a malformed one is INVALID_INPUT with the decoder's text.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';

const bodyMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const expected = {
  json: 'application/json',
  multipart: 'multipart/form-data',
} as const;

/** True when the header is the expected media type with only parameters that type allows. */
function matches(header: string | undefined, kind: keyof typeof expected): boolean {
  if (!header) return false;
  const [essence, ...params] = header.split(';').map((s) => s.trim().toLowerCase());
  if (essence !== expected[kind]) return false;
  if (kind === 'multipart') return params.some((p) => p.startsWith('boundary='));
  return params.every((p) => p === 'charset=utf-8' || p === 'charset="utf-8"' || p === '');
}

export function installContentTypeRules(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      done(
        new ApiError('INVALID_INPUT', 'Invalid request body', { body: (error as Error).message }),
        undefined,
      );
    }
  });

  // Runs after authentication (registered later), before the body is read.
  app.addHook('onRequest', async (request) => {
    if (!bodyMethods.has(request.method)) return;
    const consumes = request.routeOptions.config?.consumes;
    if (!consumes) return; // unknown route: the 404 handler answers
    if (!matches(request.headers['content-type'], consumes)) {
      throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `Content-Type must be ${expected[consumes]}`, undefined, {
        Accept: expected[consumes],
      });
    }
    // Uploads need X-Requested-With (docs/api/conventions.md#request-headers, docs/api/authentication.md): a plain HTML form from another site cannot send it.
    if (consumes === 'multipart' && request.headers['x-requested-with'] === undefined) {
      throw new ApiError('MISSING_HEADER');
    }
  });
}
