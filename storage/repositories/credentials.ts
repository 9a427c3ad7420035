/**
 * What the API's credentials read and write: an API token with its service account, the
 * accounts and users a federated identity maps to, and the batched last-used times.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

interface TokenRow {
  token_id: number;
  secret_hash: string;
  account_id: number;
  account_name: string;
  enabled: boolean;
  kind: string;
  role: string;
  expires_at: Date;
  revoked_at: Date | null;
}

/** The token with this public id and the service account it belongs to. */
export async function tokenByPublicId(em: EntityManager, publicId: string): Promise<TokenRow | undefined> {
  const [row] = await em.getConnection().execute<TokenRow[]>(
    `select t.id as token_id, t.secret_hash, a.id as account_id, a.name as account_name, a.enabled, a.kind, a.role,
            t.expires_at, t.revoked_at
       from api_token t join service_account a on a.id = t.service_account_id
      where t.public_id = ?`,
    [publicId],
  );
  return row;
}

interface IdentityRow {
  kind: 'service-account' | 'user';
  id: number;
  name: string;
  enabled: boolean;
  role: string;
}

/** Federated service accounts, then users, that the issuer's subject signs in as. */
export function identitiesOf(em: EntityManager, issuer: string, subject: string): Promise<IdentityRow[]> {
  return em.getConnection().execute<IdentityRow[]>(
    `select 'service-account' as kind, id, name, enabled, role from service_account
      where kind = 'federated' and oidc_issuer = ? and oidc_subject = ?
     union all
     select 'user' as kind, id, name, enabled, role from app_user where oidc_issuer = ? and oidc_subject = ?`,
    [issuer, subject, issuer, subject],
  );
}

/**
 * Last-used times of service accounts, each moved forward only (an older batch written late
 * never moves one back). One JSON parameter, because the driver layer would spread an array
 * into a list.
 */
export async function noteAccountsUsed(em: EntityManager, uses: { id: number; at: Date }[]): Promise<void> {
  await em.getConnection().execute(
    `update service_account a set last_used_at = greatest(coalesce(a.last_used_at, u.at), u.at)
       from json_to_recordset(?::json) as u(id int, at timestamptz) where a.id = u.id`,
    [JSON.stringify(uses.map((u) => ({ id: u.id, at: u.at.toISOString() })))],
  );
}

/** Last-used times of API tokens, and of their accounts (the latest use of each), moved forward only. */
export async function noteTokensUsed(
  em: EntityManager,
  uses: { id: number; account: number; at: Date }[],
): Promise<void> {
  const json = JSON.stringify(uses.map((u) => ({ id: u.id, account: u.account, at: u.at.toISOString() })));
  const conn = em.getConnection();
  await conn.execute(
    `update api_token t set last_used_at = greatest(coalesce(t.last_used_at, u.at), u.at)
       from json_to_recordset(?::json) as u(id int, account int, at timestamptz) where t.id = u.id`,
    [json],
  );
  await conn.execute(
    `update service_account a set last_used_at = greatest(coalesce(a.last_used_at, u.at), u.at)
       from (select account, max(at) as at
               from json_to_recordset(?::json) as x(id int, account int, at timestamptz) group by account) u
      where a.id = u.account`,
    [json],
  );
}
