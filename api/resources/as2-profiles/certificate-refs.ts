/**
 * The certificates a profile names, kept as rows of as2_profile_certificate (one per field and
 * position), and the checks on them: they exist, they hold a matching private key where they
 * sign or decrypt for the local side, and they hold a key CMS can encrypt to where AS2 encrypts
 * to them: RSA (key transport) or EC on a curve pier agrees keys on (ECDH, RFC 5753), and one
 * of the NIST curves where the profile asks for 1-pass ECMQV.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { keyAgreementCurves } from '../../../pki/algorithms/key-agreement-algorithms.js';
import { As2ProfileCertificateSchema } from '../../../storage/entities/as2-profile.js';
import { certificateFactsLocked, type CertificateFacts } from '../../../storage/repositories/certificates.js';

export type Owner = { kind: 'local'; id: number } | { kind: 'remote'; id: number };

/** One certificate field of a profile and what its certificates must be. */
export interface CertificateUse {
  field: string;
  ids: number[];
  /** Why a private key is needed ("signing"), when it is. */
  keyFor?: string;
  /** Why a key that can carry a content-encryption key is needed ("encryption"), when it is. */
  encryptionFor?: string;
  /**
   * Set when the profile asks for 1-pass ECMQV: an EC certificate must then be on a curve pier
   * does ECMQV on. Only the curve is checked; the certificate's own field reports the rest.
   */
  ecmqv?: boolean;
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
  const facts = new Map((await certificateFactsLocked(em, ids)).map((row) => [row.id, row]));
  const problems: Record<string, string> = {};
  for (const use of uses) {
    for (const id of use.ids) {
      const c = facts.get(id);
      let problem: string | undefined;
      if (use.ecmqv) {
        if (c?.key_algorithm === 'EC' && !keyAgreementCurves[c.key_curve]?.mqvScheme)
          problem = `Certificate ${id} (${c.name}) has an EC ${curveName(c.key_curve)} key; 1-pass ECMQV needs ${mqvCurvesText} (or choose ecdh)`;
      } else if (!c) problem = `Certificate ${id} does not exist`;
      else if (use.keyFor && !c.has_key)
        problem = `Certificate ${id} (${c.name}) has no private key; ${use.keyFor} needs one`;
      else if (use.keyFor && !c.private_key_matches) {
        problem = `Certificate ${id} (${c.name}) has a private key that does not belong to it; ${use.keyFor} needs its own key`;
      } else if (use.encryptionFor && !encryptsTo(c)) {
        const key = c.key_curve ? `${c.key_algorithm} ${curveName(c.key_curve)}` : c.key_algorithm;
        problem = `Certificate ${id} (${c.name}) has an ${key} key; AS2 ${use.encryptionFor} needs an RSA certificate or an EC certificate on ${ecCurvesText}`;
      }
      if (problem) {
        problems[use.field] = problem;
        break;
      }
    }
  }
  return problems;
}

/** The names operators know the NIST curves by; node:crypto reports OpenSSL's. */
const nistNames: Record<string, string> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };
const curveName = (curve: string) => nistNames[curve] ?? curve;
const ecCurvesText = Object.keys(keyAgreementCurves).map(curveName).join(', ');
const mqvCurvesText = Object.entries(keyAgreementCurves)
  .filter(([, c]) => c.mqvScheme)
  .map(([curve]) => curveName(curve))
  .join(', ');

/** RSA key transport, or ECDH on a curve pier agrees keys on. */
function encryptsTo(c: CertificateFacts): boolean {
  return c.key_algorithm === 'RSA' || (c.key_algorithm === 'EC' && c.key_curve in keyAgreementCurves);
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
