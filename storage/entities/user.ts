/** People who sign in to the web UI; managed by the CLI and the UI, not the API. */
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAt, updatedAt } from './timestamps.js';

export const UserSchema = defineEntity({
  name: 'User',
  tableName: 'app_user',
  properties: {
    id: p.integer().primary().autoincrement(),
    name: p.string().length(64),
    oidc_issuer: p.text(),
    oidc_subject: p.text(),
    enabled: p.boolean(),
    role: p.string().length(16).$type<'admin' | 'operator' | 'viewer'>().default('viewer'),
    /** scrypt hash of the local password (`pier users passwd`); empty for none. */
    password_hash: p.text().default(''),
    last_sign_in_at: p.datetime().columnType('timestamptz').nullable(),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
});
export type User = InferEntity<typeof UserSchema>;
