/**
 * Which AS2 profiles and plugin configurations use which certificates, and in which fields:
 * for the delete refusal (docs/api/conventions.md#errors CERTIFICATE_IN_USE) and the expiry alerts.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

export type CertificateUserKind = 'as2-local-profile' | 'as2-remote-profile' | 'plugin-config';

export interface CertificateUser {
  certificate_id: number;
  kind: CertificateUserKind;
  /** The organization's or partner's name; `<type>/<name>` of a plugin configuration. */
  name: string;
  /** Fields naming the certificate, for example `signing_certificate_id`. */
  fields: string[];
  /** API path of the profile or configuration. */
  link: string;
}

/** A plugin setting that names a certificate by id (the registry in actors/ lists them). */
export interface CertificateSetting {
  type: string;
  field: string;
}

interface Row {
  certificate_id: number;
  field: string;
  local_organization_id: number | null;
  business_partner_id: number | null;
  party_name: string;
}

/**
 * Users of the given certificates, grouped per profile or configuration: local profiles, then
 * remote profiles, each by party name, then plugin configurations by type and name.
 */
export async function certificateUsers(
  em: EntityManager,
  certificateIds: number[],
  settings: readonly CertificateSetting[],
): Promise<CertificateUser[]> {
  if (certificateIds.length === 0) return [];
  return [...(await profileUsers(em, certificateIds)), ...(await pluginUsers(em, certificateIds, settings))];
}

async function profileUsers(em: EntityManager, certificateIds: number[]): Promise<CertificateUser[]> {
  const rows = await em.getConnection().execute<Row[]>(
    `select pc.certificate_id, pc.field, pc.local_organization_id, pc.business_partner_id,
            coalesce(o.name, p.name) as party_name
       from as2_profile_certificate pc
       left join organization o on o.id = pc.local_organization_id
       left join partner p on p.id = pc.business_partner_id
      where pc.certificate_id in (${certificateIds.map(() => '?').join(', ')})
      order by pc.certificate_id, pc.local_organization_id is null, party_name, pc.field, pc.position`,
    certificateIds,
    'all',
    em.getTransactionContext(),
  );
  const users = new Map<string, CertificateUser>();
  for (const row of rows) {
    const local = row.local_organization_id !== null;
    const partyId = local ? row.local_organization_id : row.business_partner_id;
    const key = `${row.certificate_id}:${local ? 'l' : 'r'}:${partyId}`;
    let user = users.get(key);
    if (!user) {
      user = {
        certificate_id: row.certificate_id,
        kind: local ? 'as2-local-profile' : 'as2-remote-profile',
        name: row.party_name,
        fields: [],
        link: `/api/v1/as2/${local ? 'local' : 'remote'}-profiles/${partyId}`,
      };
      users.set(key, user);
    }
    if (!user.fields.includes(row.field)) user.fields.push(row.field);
  }
  return [...users.values()];
}

interface PluginReference {
  certificate_id: number;
  type: string;
  name: string;
  field: string;
}

/** Configurations are few (one per instance), so their settings are read here rather than matched in SQL. */
async function pluginReferences(
  em: EntityManager,
  settings: readonly CertificateSetting[],
): Promise<PluginReference[]> {
  const types = [...new Set(settings.map((s) => s.type))];
  if (types.length === 0) return [];
  const rows = await em
    .getConnection()
    .execute<{ type: string; name: string; settings: Record<string, unknown> }[]>(
      `select type, name, settings from plugin_config where type in (${types.map(() => '?').join(', ')})
      order by type, name`,
      types,
      'all',
      em.getTransactionContext(),
    );
  const references: PluginReference[] = [];
  for (const row of rows) {
    for (const s of settings) {
      const id = row.settings[s.field];
      if (s.type === row.type && typeof id === 'number') {
        references.push({ certificate_id: id, type: row.type, name: row.name, field: s.field });
      }
    }
  }
  return references;
}

/** Ids of the certificates plugin configurations name (for the expiry check's candidates). */
export async function certificatesNamedBySettings(
  em: EntityManager,
  settings: readonly CertificateSetting[],
): Promise<number[]> {
  return [...new Set((await pluginReferences(em, settings)).map((r) => r.certificate_id))];
}

async function pluginUsers(
  em: EntityManager,
  certificateIds: number[],
  settings: readonly CertificateSetting[],
): Promise<CertificateUser[]> {
  const references = await pluginReferences(em, settings);
  const users: CertificateUser[] = [];
  for (const id of new Set(certificateIds)) {
    const byConfig = new Map<string, CertificateUser>();
    for (const r of references.filter((r) => r.certificate_id === id)) {
      const key = `${r.type}/${r.name}`;
      const user = byConfig.get(key) ?? {
        certificate_id: id,
        kind: 'plugin-config' as const,
        name: key,
        fields: [],
        link: `/api/v1/plugins/configs/${r.type}/${r.name}`,
      };
      user.fields.push(r.field);
      byConfig.set(key, user);
    }
    users.push(...byConfig.values());
  }
  return users;
}
