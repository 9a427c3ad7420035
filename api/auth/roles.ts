/**
 * Which role an API request needs (roles are pier's own rule, see
 * docs/identity.md): reading needs viewer, changing messages, services, certificates,
 * partners and the rest of the exchange configuration needs operator, and changing who may get
 * in (identity providers, service accounts, API tokens) or the global settings needs admin.
 */
import { ApiError } from '../errors.js';
import { roleAllows, type Role } from '../schemas/role.js';
import type { Caller } from './caller.js';

/** Paths (below the API prefix) whose changes only an administrator may make. */
const adminOnly = ['/oidc-providers', '/service-accounts', '/api-tokens', '/settings', '/config/apply'];
/** Changes below a record that only an administrator may make: a reset control number breaks the partner's sequence. */
const adminOnlyBelow = /^\/partners\/[^/]+\/control-numbers(\/|$)/;

export function requiredRole(method: string, path: string): Role {
  if (method === 'GET' || method === 'HEAD') return 'viewer';
  if (adminOnly.some((p) => path === p || path.startsWith(`${p}/`)) || adminOnlyBelow.test(path))
    return 'admin';
  return 'operator';
}

/** 403 INSUFFICIENT_ROLE when the caller's role does not reach the needed one. */
export function checkRole(caller: Caller, needed: Role): void {
  const role = caller.role ?? 'admin';
  if (roleAllows(role, needed)) return;
  throw new ApiError(
    'INSUFFICIENT_ROLE',
    `This needs the role ${needed}; ${caller.actor} has the role ${role}`,
    { role, required: needed },
  );
}
