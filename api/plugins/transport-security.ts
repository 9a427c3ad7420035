/**
 * Strict-Transport-Security on every answer of the API and web UI server when PUBLIC_URL is
 * https: a browser that once reached pier over TLS never again sends a session cookie or a
 * form over plain http, even when someone types the http:// address. Without https in
 * PUBLIC_URL the header is left out, since it would lock browsers out of an http-only server.
 */
import type { FastifyInstance } from 'fastify';
import { limits } from '../../limits/limits.js';

export function installTransportSecurity(app: FastifyInstance, publicUrl: string): void {
  if (!publicUrl.startsWith('https:')) return;
  const value = `max-age=${limits.hstsMaxAgeSeconds}`;
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('Strict-Transport-Security', value);
  });
}
