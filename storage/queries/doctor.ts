/**
 * What `pier doctor` reads of the database, as named statements: the database's clock, every sealed secret (to try opening it), enabled instances' ports, and
 * the certificates profiles and plugin settings name. Read only: the doctor changes nothing.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

const run = <T>(em: EntityManager, sql: string, params: unknown[] = []): Promise<T[]> =>
  em.getConnection().execute<T[]>(sql, params);

/** The database server's clock, read as close to the round trip's middle as one statement allows. */
export async function databaseClock(em: EntityManager): Promise<Date> {
  const [row] = await run<{ now: Date }>(em, 'select clock_timestamp() as now');
  return new Date(row!.now);
}

/** One sealed value and where it is kept, in words an operator can find it by. */
export interface SealedSecret {
  where: string;
  sealed: string;
}

/** Every value sealed by the secret box: the key check, private keys, passwords, header lists, client secrets. */
export async function sealedSecrets(em: EntityManager): Promise<SealedSecret[]> {
  return run<SealedSecret>(
    em,
    `select 'the secret key check of the settings' as where, secret_check as sealed
       from settings where secret_check <> ''
     union all
     select 'the private key of certificate ' || id || ' (' ||
            coalesce(nullif(description, ''), nullif(common_name, ''), subject) || ')', private_key
       from certificate where private_key is not null
     union all
     select 'the HTTP password of partner ' || p.name, r.http_basic_password
       from as2_remote_profile r join partner p on p.id = r.partner_id
      where r.http_basic_password is not null
     union all
     select 'the HTTP headers of partner ' || p.name, r.http_headers
       from as2_remote_profile r join partner p on p.id = r.partner_id
      where r.http_headers is not null
     union all
     select 'the client secret of identity provider ' || name, client_secret_sealed
       from oidc_provider where client_secret_sealed <> ''
     union all
     select 'the setting ' || s.key || ' of ' || c.type || '/' || c.name, s.value
       from plugin_config c, jsonb_each_text(c.secrets) s`,
  );
}

/** The settings record has a key check (written by the first start). */
export async function hasSecretCheck(em: EntityManager): Promise<boolean> {
  const [row] = await run<{ secret_check: string }>(em, 'select secret_check from settings where id = 1');
  return (row?.secret_check ?? '') !== '';
}

export interface ListeningInstance {
  type: string;
  name: string;
  host: string;
  port: number;
  path: string;
  /** A certificate id: the instance speaks HTTPS. */
  tls: boolean;
}

/** Enabled plugin instances that listen on a port of their own (the AS2 receivers). */
export async function enabledListeners(em: EntityManager): Promise<ListeningInstance[]> {
  const rows = await run<{ type: string; name: string; settings: Record<string, unknown> }>(
    em,
    `select type, name, settings from plugin_config
      where enabled and settings ? 'port' order by type, name`,
  );
  return rows.map((r) => ({
    type: r.type,
    name: r.name,
    host: typeof r.settings.host === 'string' ? r.settings.host : '0.0.0.0',
    port: Number(r.settings.port),
    path: typeof r.settings.path === 'string' ? r.settings.path : '/',
    tls: typeof r.settings.tls_certificate_id === 'number',
  }));
}

export interface ExpiringCertificate {
  id: number;
  name: string;
  not_after: Date;
}

/** Certificates that expire before `until`, soonest first. */
export async function certificatesExpiringBefore(
  em: EntityManager,
  until: Date,
): Promise<ExpiringCertificate[]> {
  const rows = await run<ExpiringCertificate>(
    em,
    `select id, coalesce(nullif(description, ''), nullif(common_name, ''), subject) as name, not_after
       from certificate where not_after <= ? order by not_after, id`,
    [until],
  );
  return rows.map((r) => ({ ...r, not_after: new Date(r.not_after) }));
}

/** A certificate a profile or a plugin setting names, with what the store holds for it. */
export interface CertificateReference {
  /** `the AS2 profile of organization acme`, `the plugin configuration as2-receiver/in`. */
  user: string;
  field: string;
  certificate_id: number;
  /** Whether the field is used with the certificate's private key (signing, decryption, TLS). */
  needs_key: boolean;
  /** Null: no such certificate is stored. */
  has_key: boolean | null;
  key_matches: boolean | null;
}

/** Profile fields that sign, decrypt or authenticate with the certificate's private key. */
const profileKeyFields = [
  'signing_certificate_id',
  'decryption_certificate_ids',
  'tls_client_certificate_id',
];

/** Every certificate the AS2 profiles name. */
export async function profileCertificateReferences(em: EntityManager): Promise<CertificateReference[]> {
  const rows = await run<{
    user: string;
    field: string;
    certificate_id: number;
    found: boolean;
    has_key: boolean;
    key_matches: boolean | null;
  }>(
    em,
    `select case when pc.local_organization_id is not null
                 then 'the AS2 profile of organization ' || o.name
                 else 'the AS2 profile of partner ' || p.name end as user,
            pc.field, pc.certificate_id,
            c.id is not null as found, c.private_key is not null as has_key,
            c.private_key_matches as key_matches
       from as2_profile_certificate pc
       left join organization o on o.id = pc.local_organization_id
       left join partner p on p.id = pc.business_partner_id
       left join certificate c on c.id = pc.certificate_id
      order by 1, pc.field, pc.position`,
  );
  return rows.map(({ found, ...r }) => ({
    ...r,
    needs_key: profileKeyFields.includes(r.field),
    has_key: found ? r.has_key : null,
    key_matches: found ? r.key_matches : null,
  }));
}

/** Certificates named by plugin settings (`fields`: type → field → whether it needs the key). */
export async function settingCertificateReferences(
  em: EntityManager,
  fields: readonly { type: string; field: string; needsKey: boolean }[],
): Promise<CertificateReference[]> {
  if (fields.length === 0) return [];
  const rows = await run<{ type: string; name: string; settings: Record<string, unknown> }>(
    em,
    'select type, name, settings from plugin_config where type = any(?) order by type, name',
    [`{${[...new Set(fields.map((f) => f.type))].join(',')}}`],
  );
  const named = rows.flatMap((row) =>
    fields
      .filter((f) => f.type === row.type && typeof row.settings[f.field] === 'number')
      .map((f) => ({
        user: `the plugin configuration ${row.type}/${row.name}`,
        field: f.field,
        certificate_id: row.settings[f.field] as number,
        needs_key: f.needsKey,
      })),
  );
  if (named.length === 0) return [];
  const stored = await run<{ id: number; has_key: boolean; key_matches: boolean }>(
    em,
    'select id, private_key is not null as has_key, private_key_matches as key_matches from certificate where id = any(?)',
    [`{${named.map((n) => n.certificate_id).join(',')}}`],
  );
  const byId = new Map(stored.map((s) => [s.id, s]));
  return named.map((n) => ({
    ...n,
    has_key: byId.get(n.certificate_id)?.has_key ?? null,
    key_matches: byId.get(n.certificate_id)?.key_matches ?? null,
  }));
}

/** Partners with an AS2 profile: where the connection check goes. */
export async function as2Partners(
  em: EntityManager,
): Promise<{ id: number; name: string; endpoint: string }[]> {
  return run(
    em,
    `select p.id, p.name, r.endpoint from as2_remote_profile r join partner p on p.id = r.partner_id
      order by p.name`,
  );
}
