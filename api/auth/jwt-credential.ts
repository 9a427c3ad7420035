/**
 * JWTs of identity providers as a credential (docs/api/authentication.md). The provider is chosen by
 * `iss` exactly; the token is checked locally against the provider's cached keys (no network
 * round trip once they are cached): signature with pinned asymmetric algorithms, issuer,
 * audience, exp/nbf with a 30-second clock tolerance, and the provider's api_scopes. Every claim
 * read is typed first (token-claims.ts). The caller is the federated service account or the user
 * registered for (issuer, subject).
 */
import { decodeJwt, decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { Orm } from '../../storage/db.js';
import { identitiesOf } from '../../storage/repositories/credentials.js';
import type { Role } from '../schemas/role.js';
import { scopeSet } from '../schemas/oidc-provider.js';
import type { ApiTokenCredential } from './api-token-credential.js';
import type { Caller, CredentialKind } from './caller.js';
import type { OidcDirectory } from './oidc-directory.js';
import { grantedScopes, readTokenClaims } from './token-claims.js';
import { TokenRefused } from './token-refused.js';
import { limits } from '../../limits/limits.js';

/** Asymmetric algorithms only: never `none`, never HS* (a public key must not become an HMAC secret). */
const allowedJwtAlgorithms = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

const jwtShape = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

interface Identity {
  kind: 'service-account' | 'user';
  id: number;
  name: string;
  enabled: boolean;
  role: Role;
}

export class JwtCredential implements CredentialKind {
  readonly scheme = 'bearerAuth';
  readonly #identities = new Map<string, { found: Identity[]; at: number }>();

  constructor(
    private readonly orm: Orm,
    private readonly directory: OidcDirectory,
    private readonly usage: ApiTokenCredential,
    private readonly now: () => Date = () => new Date(),
    private readonly identityTtlMs = 10_000,
  ) {}

  accepts(token: string): boolean {
    return jwtShape.test(token);
  }

  async authenticate(token: string): Promise<Caller> {
    let header: ReturnType<typeof decodeProtectedHeader>;
    let decoded: JWTPayload;
    try {
      header = decodeProtectedHeader(token);
      decoded = decodeJwt(token);
    } catch {
      throw new TokenRefused('not a well-formed JWT');
    }
    if (typeof header.alg !== 'string' || !allowedJwtAlgorithms.includes(header.alg)) {
      throw new TokenRefused(`algorithm ${String(header.alg)} is not allowed`);
    }
    // Read before the signature is checked, only to choose the provider and its audience rule.
    const claims = readTokenClaims(decoded);
    const issuer = claims.iss;
    const provider = await this.directory.byIssuer(issuer);
    if (!provider) throw new TokenRefused(`no identity provider has issuer ${issuer}`);
    if (!provider.enabled) throw new TokenRefused(`identity provider ${provider.name} is disabled`);

    const noAudience =
      claims.aud === undefined || claims.aud === '' || (Array.isArray(claims.aud) && claims.aud.length === 0);
    const audience = provider.api_audience || provider.client_id;
    if (noAudience && !provider.accept_tokens_without_audience) {
      throw new TokenRefused(`token has no audience and ${provider.name} requires one`);
    }
    if (!noAudience && audience === '') {
      throw new TokenRefused(`identity provider ${provider.name} has neither api_audience nor client_id`);
    }

    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.directory.keysOf(provider), {
        issuer: provider.issuer_url,
        algorithms: allowedJwtAlgorithms,
        clockTolerance: limits.jwtClockToleranceSeconds,
        currentDate: this.now(),
        requiredClaims: ['exp', 'sub'],
        ...(noAudience ? {} : { audience }),
      }));
    } catch (error) {
      const code = error instanceof joseErrors.JOSEError ? error.code : 'ERR_FETCH';
      throw new TokenRefused(`${code}: ${(error as Error).message}`);
    }

    // What grants access is read from the verified payload only.
    const verified = readTokenClaims(payload);
    const granted = grantedScopes(verified);
    const missing = scopeSet(provider.api_scopes).filter((s) => !granted.has(s));
    if (missing.length > 0) throw new TokenRefused(`token lacks scopes ${missing.join(' ')}`);

    const { iss: verifiedIssuer, sub: subject } = verified;
    const found = await this.#identitiesOf(verifiedIssuer, subject);
    const account = found.find((i) => i.kind === 'service-account');
    const user = found.find((i) => i.kind === 'user');
    if (account) {
      if (!account.enabled) throw new TokenRefused(`service account ${account.name} is disabled`);
      this.usage.noteAccountUse(account.id, this.now());
      return { kind: 'service-account', actor: `sa:${account.name}`, role: account.role };
    }
    if (noAudience) throw new TokenRefused(`token without audience from ${subject}, not a federated account`);
    if (!user) throw new TokenRefused(`subject ${subject} of ${verifiedIssuer} is not registered`);
    if (!user.enabled) throw new TokenRefused(`user ${user.name} is disabled`);
    return { kind: 'user', actor: user.name, role: user.role };
  }

  /** Forgets cached identities; called when accounts, users or providers change anywhere. */
  invalidate(): void {
    this.#identities.clear();
    this.directory.invalidate();
  }

  async #identitiesOf(issuer: string, subject: string): Promise<Identity[]> {
    const key = `${issuer}\n${subject}`;
    const cached = this.#identities.get(key);
    if (cached && Date.now() - cached.at < this.identityTtlMs) return cached.found;
    // Roles are stored as the API's role names (checked when written).
    const rows = (await identitiesOf(this.orm.em, issuer, subject)) as Identity[];
    if (this.#identities.size >= 10_000) this.#identities.clear();
    this.#identities.set(key, { found: rows, at: Date.now() });
    return rows;
  }
}
