/**
 * API tokens of local service accounts as a credential. A warm token costs no database
 * round trip: lookups are cached for a short time, dropped at once on revoke or disable
 * (in every process, through NOTIFY), and last-used times are written in batches.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Orm } from '../../storage/db.js';
import { noteAccountsUsed, noteTokensUsed, tokenByPublicId } from '../../storage/repositories/credentials.js';
import { ApiError } from '../errors.js';
import type { Role } from '../schemas/role.js';
import type { Caller, CredentialKind } from './caller.js';
import { hashToken, looksLikeApiToken, publicIdOf } from './token-format.js';

interface TokenRecord {
  tokenId: number;
  secretHash: string;
  accountId: number;
  accountName: string;
  accountEnabled: boolean;
  accountKind: string;
  accountRole: Role;
  expiresAt: Date;
  revoked: boolean;
}

interface CacheEntry {
  record: TokenRecord | undefined;
  fetchedAt: number;
}

export interface ApiTokenCredentialOptions {
  /** How long a looked-up token is trusted without asking the database again, in milliseconds. */
  cacheTtlMs: number;
  /** How often last-used times are written, in milliseconds. */
  usageFlushMs: number;
  /** Cache size bound, in entries. */
  maxEntries: number;
}

const apiTokenCredentialDefaults: ApiTokenCredentialOptions = {
  cacheTtlMs: 10_000,
  usageFlushMs: 5_000,
  maxEntries: 10_000,
};

export class ApiTokenCredential implements CredentialKind {
  readonly scheme = 'apiToken';
  readonly #cache = new Map<string, CacheEntry>();
  /** token id → account id, time of the latest use not yet written. */
  readonly #usage = new Map<number, { accountId: number; at: Date }>();
  /** account id → latest use by another credential (an identity-provider JWT), not yet written. */
  readonly #accountUsage = new Map<number, Date>();
  readonly #timer: NodeJS.Timeout;
  readonly #options: ApiTokenCredentialOptions;

  constructor(
    private readonly orm: Orm,
    options: Partial<ApiTokenCredentialOptions> = {},
    private readonly now: () => Date = () => new Date(),
  ) {
    this.#options = { ...apiTokenCredentialDefaults, ...options };
    this.#timer = setInterval(() => void this.flushUsage().catch(() => {}), this.#options.usageFlushMs);
    this.#timer.unref();
  }

  accepts(token: string): boolean {
    return looksLikeApiToken(token);
  }

  async authenticate(token: string): Promise<Caller> {
    const publicId = publicIdOf(token);
    if (!publicId) throw new ApiError('INVALID_TOKEN');
    const record = await this.#lookup(publicId);
    if (!record || !sameHash(record.secretHash, hashToken(token))) throw new ApiError('INVALID_TOKEN');
    if (record.revoked || !record.accountEnabled || record.accountKind !== 'local') {
      throw new ApiError('INVALID_TOKEN');
    }
    const now = this.now();
    if (record.expiresAt.getTime() <= now.getTime()) throw new ApiError('TOKEN_EXPIRED');
    this.#usage.set(record.tokenId, { accountId: record.accountId, at: now });
    return {
      kind: 'service-account',
      actor: `sa:${record.accountName}`,
      role: record.accountRole,
      tokenId: record.tokenId,
    };
  }

  /** Notes the use of a (federated) service account; written with the next batch of last-used times. */
  noteAccountUse(accountId: number, at: Date): void {
    this.#accountUsage.set(accountId, at);
  }

  /** Forgets every cached lookup; called when tokens or accounts change anywhere. */
  invalidate(): void {
    this.#cache.clear();
  }

  /** Writes pending last-used times. Lists call it first so they show current values. */
  async flushUsage(): Promise<void> {
    if (this.#accountUsage.size > 0) {
      const accounts = [...this.#accountUsage].map(([id, at]) => ({ id, at }));
      this.#accountUsage.clear();
      await noteAccountsUsed(this.orm.em, accounts);
    }
    if (this.#usage.size === 0) return;
    const pending = [...this.#usage.entries()];
    this.#usage.clear();
    await noteTokensUsed(
      this.orm.em,
      pending.map(([id, u]) => ({ id, account: u.accountId, at: u.at })),
    );
  }

  close(): void {
    clearInterval(this.#timer);
  }

  async #lookup(publicId: string): Promise<TokenRecord | undefined> {
    const cached = this.#cache.get(publicId);
    const nowMs = Date.now();
    if (cached && nowMs - cached.fetchedAt < this.#options.cacheTtlMs) return cached.record;
    const row = await tokenByPublicId(this.orm.em, publicId);
    const record: TokenRecord | undefined = row && {
      tokenId: row.token_id,
      secretHash: row.secret_hash,
      accountId: row.account_id,
      accountName: row.account_name,
      accountEnabled: row.enabled,
      accountKind: row.kind,
      accountRole: row.role as Role,
      expiresAt: new Date(row.expires_at),
      revoked: row.revoked_at !== null,
    };
    if (this.#cache.size >= this.#options.maxEntries) this.#cache.clear();
    this.#cache.set(publicId, { record, fetchedAt: nowMs });
    return record;
  }
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
