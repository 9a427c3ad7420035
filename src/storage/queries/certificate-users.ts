/**
 * Which AS2 profiles use which certificates, and in which fields: for the delete refusal
 * (spec 7 CERTIFICATE_IN_USE) and the expiry alerts.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

export type CertificateUserKind = 'as2-local-profile' | 'as2-remote-profile';

export interface CertificateUser {
  certificate_id: number;
  kind: CertificateUserKind;
  /** The organization's or partner's name. */
  name: string;
  /** Profile fields naming the certificate, for example `signing_certificate_id`. */
  fields: string[];
  /** API path of the profile. */
  link: string;
}

interface Row {
  certificate_id: number;
  field: string;
  local_organization_id: number | null;
  business_partner_id: number | null;
  party_name: string;
}

/** Users of the given certificates, grouped per profile, ordered by kind and party name. */
export async function certificateUsers(
  em: EntityManager,
  certificateIds: number[],
): Promise<CertificateUser[]> {
  if (certificateIds.length === 0) return [];
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
