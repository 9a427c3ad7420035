/** Who is making a request, as the audit log and the logs name them. */
import type { Role } from '../schemas/role.js';

export interface Caller {
  /** How the caller proved who it is. */
  kind: 'service-account' | 'user' | 'developer';
  /** The name written to the audit log: `sa:<name>` for a service account, the user's name otherwise. */
  actor: string;
  /** What the caller may do; absent for the command line and the system, which may do everything. */
  role?: Role;
  /** The API token that authenticated a service account (for log lines; never its value). */
  tokenId?: number;
}

export const developerCaller: Caller = { kind: 'developer', actor: 'developer', role: 'admin' };

/** One kind of bearer credential (API token, identity-provider JWT). The first that accepts a token checks it. */
export interface CredentialKind {
  /** The OpenAPI security scheme name of this kind. */
  scheme: string;
  accepts(token: string): boolean;
  /** Resolves the caller, or throws ApiError INVALID_TOKEN / TOKEN_EXPIRED. */
  authenticate(token: string): Promise<Caller>;
}
