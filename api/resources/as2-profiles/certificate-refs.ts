/**
 * The certificates a profile names, kept as rows of as2_profile_certificate (one per field and
 * position), and the checks on them: they exist, they hold a matching private key where they
 * sign or decrypt for the local side, and they are RSA where AS2 encrypts to them.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { As2ProfileCertificateSchema } from '../../../storage/entities/as2-profile.js';

export type Owner = { kind: 'local'; id: number } | { kind: 'remote'; id: number };

/** One certificate field of a profile and what its certificates must be. */
export interface CertificateUse {
  field: string;
  ids: number[];
  /** Why a private key is needed ("signing"), when it is. */
  keyFor?: string;
  /** Why an RSA key is needed ("encryption"), when it is. */
  rsaFor?: string;
}

interface CertificateFacts {
  id: number;
  name: string;
  key_algorithm: string;
  has_key: boolean;
  private_key_matches: boolean;
}

/**
 * Problems per field, first one only. Locks the certificates (KEY SHARE) so that a delete
 * running at the same time waits for this transaction, or this one sees the certificate gone.
 */
export async function certificateProblems(
  em: EntityManager,
  uses: CertificateUse[],
): Promise<Record<string, string>> {
  const ids = [...new Set(uses.flatMap((u) => u.ids))];
  const facts = new Map<number, CertificateFacts>();
  if (ids.length > 0) {
    const rows = await em.getConnection().execute<CertificateFacts[]>(
      `select id, coalesce(nullif(description, ''), nullif(common_name, ''), subject) as name, key_algorithm,
              private_key is not null as has_key, private_key_matches
         from certificate where id in (${ids.map(() => '?').join(', ')}) for key share`,
      ids,
      'all',
      em.getTransactionContext(),
    );
    for (const row of rows) facts.set(row.id, row);
  }
  const problems: Record<string, string> = {};
  for (const use of uses) {
    for (const id of use.ids) {
      const c = facts.get(id);
      let problem: string | undefined;
      if (!c) problem = `Certificate ${id} does not exist`;
      else if (use.keyFor && !c.has_key)
        problem = `Certificate ${id} (${c.name}) has no private key; ${use.keyFor} needs one`;
      else if (use.keyFor && !c.private_key_matches) {
        problem = `Certificate ${id} (${c.name}) has a private key that does not belong to it; ${use.keyFor} needs its own key`;
      } else if (use.rsaFor && c.key_algorithm !== 'RSA') {
        problem = `Certificate ${id} (${c.name}) has an ${c.key_algorithm} key; AS2 ${use.rsaFor} needs an RSA certificate`;
      }
      if (problem) {
        problems[use.field] = problem;
        break;
      }
    }
  }
  return problems;
}

function ownerColumn(owner: Owner) {
  return owner.kind === 'local' ? 'local_organization_id' : 'business_partner_id';
}

/** The certificate fields of the given profiles: party id → field → ids in order. */
export async function readCertificateRefs(
  em: EntityManager,
  kind: Owner['kind'],
  partyIds: number[],
): Promise<Map<number, Record<string, number[]>>> {
  const out = new Map<number, Record<string, number[]>>();
  if (partyIds.length === 0) return out;
  const column = kind === 'local' ? 'local_organization_id' : 'business_partner_id';
  const rows = await em.find(
    As2ProfileCertificateSchema,
    { [column]: { $in: partyIds } },
    { orderBy: { field: 'asc', position: 'asc' } },
  );
  for (const row of rows) {
    const partyId = (kind === 'local' ? row.local_organization_id : row.business_partner_id)!;
    const fields = out.get(partyId) ?? {};
    (fields[row.field] ??= []).push(row.certificate_id);
    out.set(partyId, fields);
  }
  return out;
}

/** Replaces the certificate rows of one profile. */
export async function writeCertificateRefs(
  em: EntityManager,
  owner: Owner,
  refs: Record<string, number[]>,
): Promise<void> {
  const column = ownerColumn(owner);
  await em.nativeDelete(As2ProfileCertificateSchema, { [column]: owner.id });
  for (const [field, ids] of Object.entries(refs)) {
    ids.forEach((certificate_id, position) =>
      em.create(As2ProfileCertificateSchema, {
        local_organization_id: owner.kind === 'local' ? owner.id : null,
        business_partner_id: owner.kind === 'remote' ? owner.id : null,
        field,
        position,
        certificate_id,
      }),
    );
  }
  await em.flush();
}
