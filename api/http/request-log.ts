/**
 * One info line per API request, when its answer has gone: method, route (the pattern, so ids
 * do not make every line different), status, duration and the user. Never the body or headers:
 * bodies carry secrets and payloads. Load balancers' /health probes log at debug.
 *
 * Every line logged while a request runs carries its `request_id` (fastify's child logger), and
 * once the caller is known (API credential or web UI session) its `user` and, for an API
 * token, its `token_id`: `bindCaller` swaps the request's logger for one with those fields.
 * The id is answered in `X-Request-Id`, and taken from the client's own header when it is a
 * plausible id, so a proxy's id follows the request through.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../auth/caller.js';

export const requestIdHeader = 'x-request-id';
const messageRoute = '/api/v1/messages/:id';
const plausibleId = /^[A-Za-z0-9._:-]{1,128}$/;

/** fastify's `genReqId`: the client's X-Request-Id when plausible, else a fresh UUID (unique across a cluster). */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers[requestIdHeader];
  return typeof given === 'string' && plausibleId.test(given) ? given : randomUUID();
}

/** The fields that name a caller in log lines. */
export function callerFields(caller: Caller | null | undefined): Record<string, unknown> {
  if (!caller) return { user: null };
  return caller.tokenId === undefined
    ? { user: caller.actor }
    : { user: caller.actor, token_id: caller.tokenId };
}

/** Records who makes the request; every line logged for it from here on names them. */
export function bindCaller(request: FastifyRequest, reply: FastifyReply, caller: Caller): void {
  request.caller = caller;
  const log = request.log.child(callerFields(caller));
  request.log = log;
  reply.log = log;
}

export function installRequestLog(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header(requestIdHeader, request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? request.url.split('?')[0];
    const line = {
      method: request.method,
      route,
      status: reply.statusCode,
      duration_ms: Math.round(reply.elapsedTime * 10) / 10,
      // Already bound once the caller was known; named here too for requests refused before.
      ...(request.caller ? {} : { user: null }),
      // A request about one message names it, as every other line about a message does.
      ...(route?.startsWith(messageRoute) ? { message_id: (request.params as { id?: string }).id } : {}),
    };
    if (route === '/health') request.log.debug(line, 'request');
    else request.log.info(line, 'request');
  });
}
