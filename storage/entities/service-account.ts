/** Service accounts (docs/api/service-accounts.md) and their API tokens (docs/api/api-tokens.md). */
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAt, updatedAt } from './timestamps.js';

export const ServiceAccountSchema = defineEntity({
  name: 'ServiceAccount',
  tableName: 'service_account',
  properties: {
    id: p.integer().primary().autoincrement(),
    name: p.string().length(64),
    description: p.text(),
    kind: p.string().length(16).$type<'local' | 'federated'>(),
    enabled: p.boolean(),
    role: p.string().length(16).$type<'admin' | 'operator' | 'viewer'>(),
    oidc_issuer: p.text(),
    oidc_subject: p.text(),
    last_used_at: p.datetime().columnType('timestamptz').nullable(),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
});
export type ServiceAccount = InferEntity<typeof ServiceAccountSchema>;

export const ApiTokenSchema = defineEntity({
  name: 'ApiToken',
  tableName: 'api_token',
  properties: {
    id: p.integer().primary().autoincrement(),
    public_id: p.string().length(12),
    /** SHA-256 of the whole token value, hex; the value itself is never stored. */
    secret_hash: p.string().length(64),
    service_account_id: p.integer(),
    label: p.string().length(64),
    created_at: createdAt(),
    expires_at: p.datetime().columnType('timestamptz'),
    last_used_at: p.datetime().columnType('timestamptz').nullable(),
    revoked_at: p.datetime().columnType('timestamptz').nullable(),
  },
});
export type ApiToken = InferEntity<typeof ApiTokenSchema>;
