/** OpenID Connect providers (docs/api/oidc-providers.md) and web UI sign-in sessions. */
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAt, updatedAt } from './timestamps.js';

export const OidcProviderSchema = defineEntity({
  name: 'OidcProvider',
  tableName: 'oidc_provider',
  properties: {
    id: p.integer().primary().autoincrement(),
    name: p.string().length(64),
    display_name: p.string().length(200),
    enabled: p.boolean(),
    issuer_url: p.text(),
    client_id: p.text(),
    /** The client secret sealed by the secret box; empty for none. */
    client_secret_sealed: p.text(),
    scopes: p.text(),
    api_scopes: p.text(),
    api_audience: p.text(),
    sign_in: p.boolean(),
    accept_tokens_without_audience: p.boolean(),
    /** Role given to an unknown subject at first sign-in; empty refuses unknown subjects. */
    auto_provision_role: p.string().length(16).$type<'' | 'viewer' | 'operator'>(),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
});
export type OidcProvider = InferEntity<typeof OidcProviderSchema>;

export const UiSessionSchema = defineEntity({
  name: 'UiSession',
  tableName: 'ui_session',
  properties: {
    /** SHA-256 (hex) of the cookie value; the value itself is never stored. */
    id: p.string().length(64).primary(),
    user_id: p.integer(),
    created_at: createdAt(),
    last_seen_at: p.datetime().columnType('timestamptz'),
    expires_at: p.datetime().columnType('timestamptz'),
  },
});
export type UiSession = InferEntity<typeof UiSessionSchema>;
