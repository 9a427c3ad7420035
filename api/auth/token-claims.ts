/**
 * The claims of an identity provider's JWT that pier reads, each checked for its JSON type before
 * anything reads it. A signature proves who wrote a value, not what type it has: an array or a
 * number where a string belongs once matched a user through the SQL driver's coercion, or failed
 * in PostgreSQL as a 500. Claims pier does not read are dropped, so no code can come to rely on
 * an unchecked one.
 */
import { z } from 'zod';
import { scopeSet } from '../schemas/oidc-provider.js';
import { TokenRefused } from './token-refused.js';

/**
 * A name compared in SQL must be the same text there: PostgreSQL refuses NUL, and a lone
 * surrogate is sent as U+FFFD, which would match a different stored subject.
 */
const identifier = z
  .string()
  .min(1)
  .refine((s) => !s.includes('\u0000') && !/\p{Cs}/u.test(s));
const stringOrList = z.union([z.string(), z.array(z.string())]);
/** Seconds since the epoch; zod refuses Infinity, which JSON's 1e999 parses to (a token that never expires). */
const numericDate = z.number();

export const TokenClaimsSchema = z.object({
  iss: identifier,
  sub: identifier,
  aud: stringOrList.optional(),
  exp: numericDate,
  nbf: numericDate.optional(),
  iat: numericDate.optional(),
  // Scopes are space separated text by RFC 8693; providers also send lists (Okta's scp, some scope).
  scope: stringOrList.optional(),
  scp: stringOrList.optional(),
  azp: z.string().optional(),
  client_id: z.string().optional(),
});

export type TokenClaims = z.infer<typeof TokenClaimsSchema>;

/** The typed claims of a decoded payload, or a refusal that names the claims (never their values). */
export function readTokenClaims(payload: unknown): TokenClaims {
  const parsed = TokenClaimsSchema.safeParse(payload);
  if (parsed.success) return parsed.data;
  const claims = [...new Set(parsed.error.issues.map((issue) => String(issue.path[0] ?? '(payload)')))];
  throw new TokenRefused(`claims missing or of the wrong type: ${claims.join(', ')}`);
}

/** The scopes a token grants, from `scope` and `scp` together. */
export function grantedScopes(claims: TokenClaims): Set<string> {
  const split = (value: string | string[] | undefined) =>
    value === undefined ? [] : Array.isArray(value) ? value : scopeSet(value);
  return new Set([...split(claims.scope), ...split(claims.scp)]);
}
