/**
 * The identity providers as the checking side sees them: read from the database, cached for a
 * short time and dropped at once when any process announces a change (NOTIFY on the auth
 * channel), so a change counts from the next token and the next sign-in without a restart.
 * Each provider's discovery document and signing keys are cached per issuer: a token with an
 * unknown `kid` refetches the keys at most once per cooldown, so keys can rotate while a
 * flood of made-up kids cannot hammer the identity provider.
 */
import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import type { SecretBox } from '../../runtime/index.js';
import type { Orm } from '../../storage/db.js';
import { OidcProviderSchema, type OidcProvider } from '../../storage/entities/identity.js';

export interface OidcDirectoryOptions {
  /** How long the provider list is trusted without asking the database, in milliseconds. */
  cacheTtlMs: number;
  /** Least time between two key fetches caused by an unknown kid, in milliseconds. */
  jwksCooldownMs: number;
  /** Keys older than this are fetched again before use, in milliseconds. */
  jwksMaxAgeMs: number;
  /** Timeout of one discovery or key request, in milliseconds. */
  fetchTimeoutMs: number;
}

const oidcDirectoryDefaults: OidcDirectoryOptions = {
  cacheTtlMs: 10_000,
  // Bounds how long a key rotated in just after a fetch is refused; still at most one fetch per
  // provider per 5 s, however many made-up kids arrive (jose's 30 s default held a rollover up).
  jwksCooldownMs: 5_000,
  jwksMaxAgeMs: 10 * 60_000,
  fetchTimeoutMs: 5_000,
};

/** What a discovery document says that pier uses. */
export interface Discovery {
  issuer: string;
  jwks_uri: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
}

interface KeySource {
  /** The provider version (updated_at) the source was built for. */
  version: number;
  getKey: Promise<JWTVerifyGetKey>;
}

export class OidcDirectory {
  #options: OidcDirectoryOptions;
  #providers: { list: OidcProvider[]; fetchedAt: number } | undefined;
  readonly #keys = new Map<string, KeySource>();

  constructor(
    private readonly orm: Orm,
    private readonly secrets: SecretBox,
    options: Partial<OidcDirectoryOptions> = {},
  ) {
    this.#options = { ...oidcDirectoryDefaults, ...options };
  }

  async all(): Promise<OidcProvider[]> {
    const cached = this.#providers;
    if (cached && Date.now() - cached.fetchedAt < this.#options.cacheTtlMs) return cached.list;
    const list = await this.orm.em.fork().find(OidcProviderSchema, {}, { orderBy: { name: 'asc' } });
    this.#providers = { list, fetchedAt: Date.now() };
    return list;
  }

  /** The provider whose issuer URL is exactly `issuer` (docs/api/authentication.md), enabled or not. */
  async byIssuer(issuer: string): Promise<OidcProvider | undefined> {
    return (await this.all()).find((p) => p.issuer_url === issuer);
  }

  async byName(name: string): Promise<OidcProvider | undefined> {
    return (await this.all()).find((p) => p.name === name);
  }

  /** The provider's client secret in plain text ('' for none). */
  clientSecret(provider: OidcProvider): string {
    return provider.client_secret_sealed === '' ? '' : this.secrets.openText(provider.client_secret_sealed);
  }

  /** The key lookup for tokens of this provider: discovery once, then jose's cached remote key set. */
  keysOf(provider: OidcProvider): JWTVerifyGetKey {
    const version = new Date(provider.updated_at).getTime();
    let source = this.#keys.get(provider.issuer_url);
    if (!source || source.version !== version) {
      const getKey = this.#discoverKeys(provider.issuer_url);
      source = { version, getKey };
      this.#keys.set(provider.issuer_url, source);
      // A failed discovery is forgotten after the cooldown, so a down IdP is asked again later, not per request.
      getKey.catch(() => {
        setTimeout(() => {
          if (this.#keys.get(provider.issuer_url) === source) this.#keys.delete(provider.issuer_url);
        }, this.#options.jwksCooldownMs).unref();
      });
    }
    const pending = source.getKey;
    return async (header, token) => (await pending)(header, token);
  }

  async discover(issuer: string): Promise<Discovery> {
    const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const response = await fetch(url, { signal: AbortSignal.timeout(this.#options.fetchTimeoutMs) });
    if (!response.ok) throw new Error(`Discovery at ${url} answered ${response.status}`);
    const doc = (await response.json()) as Discovery;
    if (doc.issuer !== issuer) {
      throw new Error(`Discovery at ${url} names issuer ${String(doc.issuer)}, not ${issuer}`);
    }
    if (typeof doc.jwks_uri !== 'string') throw new Error(`Discovery at ${url} has no jwks_uri`);
    return doc;
  }

  async #discoverKeys(issuer: string): Promise<JWTVerifyGetKey> {
    const doc = await this.discover(issuer);
    return createRemoteJWKSet(new URL(doc.jwks_uri), {
      cooldownDuration: this.#options.jwksCooldownMs,
      cacheMaxAge: this.#options.jwksMaxAgeMs,
      timeoutDuration: this.#options.fetchTimeoutMs,
    });
  }

  /** Changes the cache timings (tests shorten the key cooldown); cached keys are dropped. */
  configure(options: Partial<OidcDirectoryOptions>): void {
    this.#options = { ...this.#options, ...options };
    this.#keys.clear();
    this.#providers = undefined;
  }

  /** Forgets the provider list (keys stay cached per issuer and provider version). */
  invalidate(): void {
    this.#providers = undefined;
  }
}
