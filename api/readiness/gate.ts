/**
 * While the process starts or drains, every request but the probes (/health, /ready) is
 * answered 503 NOT_READY with Retry-After: the routes need the message flow, which is not
 * running yet or any more, and a client told to come back loses nothing.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import { sendError } from '../plugins/error-handler.js';
import type { Readiness } from './readiness.js';
import { limits } from '../../limits/limits.js';

/** Liveness (at the root and under the API, docs/api/health.md) and readiness answer whatever the state. */
const probes = new Set(['/health', '/api/v1/health', '/ready']);

export function installReadinessGate(app: FastifyInstance, readiness: Readiness): void {
  app.addHook('onRequest', async (request, reply) => {
    if (readiness.state === 'ready' || probes.has(request.url.split('?')[0]!)) return;
    reply.header('Retry-After', String(limits.notReadyRetryAfterSeconds));
    const doing = readiness.state === 'starting' ? 'starting' : 'stopping';
    return sendError(reply, new ApiError('NOT_READY', `pier is ${doing}; try again in a moment`));
  });
}
