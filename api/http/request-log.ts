/**
 * One info line per API request, when its answer has gone: method, route (the pattern, so ids
 * do not make every line different), status, duration and the user. Never the body or headers:
 * bodies carry secrets and payloads. Load balancers' /health probes log at debug.
 */
import type { FastifyInstance } from 'fastify';

export function installRequestLog(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? request.url.split('?')[0];
    const line = {
      method: request.method,
      route,
      status: reply.statusCode,
      duration_ms: Math.round(reply.elapsedTime * 10) / 10,
      user: request.caller?.actor ?? null,
    };
    if (route === '/health') request.log.debug(line, 'request');
    else request.log.info(line, 'request');
  });
}
