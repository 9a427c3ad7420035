/**
 * Authentication of every request under the API prefix (docs/api/authentication.md): `Authorization: Bearer`,
 * checked by the first credential kind that accepts the token. The developer build lets a
 * request without the header through as `developer`; a given credential is always checked.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import { developerCaller, type Caller, type CredentialKind } from './caller.js';
import { checkRole, requiredRole } from './roles.js';
import { TokenRefused } from './token-refused.js';
import { bindCaller } from '../http/request-log.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}

export interface AuthOptions {
  kinds: CredentialKind[];
  developerBuild: boolean;
  /** Paths that need authentication; everything else (web UI assets) is left to its own rules. */
  protects(path: string): boolean;
  /** The path below the API prefix that roles are checked against, or undefined for none. */
  rolePath?(path: string): string | undefined;
}

const bearer = /^Bearer +([^\s]+) *$/i;

async function authenticate(header: string | undefined, options: AuthOptions): Promise<Caller> {
  if (header === undefined || header === '') {
    if (options.developerBuild) return developerCaller;
    throw new ApiError('MISSING_AUTH_HEADER');
  }
  const token = bearer.exec(header)?.[1];
  if (!token) throw new ApiError('INVALID_AUTH_HEADER');
  const kind = options.kinds.find((k) => k.accepts(token));
  if (!kind) throw new ApiError('INVALID_TOKEN');
  return kind.authenticate(token);
}

export function installAuth(app: FastifyInstance, options: AuthOptions): void {
  app.decorateRequest('caller', null as unknown as Caller);
  app.addHook('onRequest', async (request, reply) => {
    // CORS preflight carries no credentials by design; the CORS plugin answers it.
    if (request.method === 'OPTIONS') return;
    if (request.routeOptions.config?.public) return;
    const path = request.url.split('?')[0] ?? '';
    if (!options.protects(path)) return;
    try {
      bindCaller(request, reply, await authenticate(request.headers.authorization, options));
    } catch (error) {
      // The answer never says why (docs/api/authentication.md); the log does.
      if (error instanceof TokenRefused) request.log.info({ reason: error.reason }, 'Bearer token refused');
      throw error;
    }
    // Checked against the route's pattern, so the way a path is written cannot change the answer.
    const rolePath = options.rolePath?.(request.routeOptions.url ?? path);
    if (rolePath !== undefined) checkRole(request.caller, requiredRole(request.method, rolePath));
  });
}
