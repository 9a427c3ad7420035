/**
 * What a certificate exchange changes in a partner's AS2 profile (its as2_profile_certificate
 * rows). On arrival a new certificate is added beside the current ones where a profile lists
 * several (signature_certificate_ids, tls_trusted_certificate_ids), so the partner may use
 * either while the exchange is open; on the respond-by date the switch makes it the current
 * one (docs/decisions/cem-rollover.md).
 */
import type { Tx } from '../../storage/sql.js';
import type { CemUsage } from '../../actors/as2/cem/index.js';

/** The profile list each usage adds the new certificate to on arrival. */
const listFieldOf: Partial<Record<CemUsage, string>> = {
  signature: 'signature_certificate_ids',
  tls: 'tls_trusted_certificate_ids',
};

/** Adds the certificate to the lists its usages name where it is not yet; returns the fields it was added to. */
export async function addBeside(
  tx: Tx,
  partnerId: number,
  certificateId: number,
  usages: CemUsage[],
): Promise<string[]> {
  const added: string[] = [];
  for (const usage of usages) {
    const field = listFieldOf[usage];
    if (!field) continue;
    const [row] = await tx.all<{ inserted: boolean }>(
      `with present as (
         select 1 from as2_profile_certificate
          where business_partner_id = ? and field = ? and certificate_id = ?)
       insert into as2_profile_certificate (business_partner_id, field, position, certificate_id)
       select ?, ?, coalesce((select max(position) + 1 from as2_profile_certificate
                               where business_partner_id = ? and field = ?), 0), ?
        where not exists (select 1 from present)
       returning true as inserted`,
      [partnerId, field, certificateId, partnerId, field, partnerId, field, certificateId],
    );
    if (row) added.push(field);
  }
  if (added.length > 0) await touch(tx, partnerId);
  return added;
}

/** Takes a rejected certificate out of the lists it was added to on arrival. */
export async function removeAdded(
  tx: Tx,
  partnerId: number,
  certificateId: number,
  fields: string[],
): Promise<void> {
  if (fields.length === 0) return;
  await tx.all(
    `delete from as2_profile_certificate where business_partner_id = ? and certificate_id = ? and field = any(?::text[])`,
    [partnerId, certificateId, fields],
  );
  await renumber(tx, partnerId, fields);
  await touch(tx, partnerId);
}

/**
 * The switch on the respond-by date: for signature, the new certificate becomes the first of
 * those that verify the partner's signatures; for encryption, messages are encrypted for it; for
 * TLS it stays trusted beside what the operator trusts besides. Returns what changed, in words.
 */
export async function switchTo(
  tx: Tx,
  partnerId: number,
  certificateId: number,
  usages: CemUsage[],
): Promise<string[]> {
  const changes: string[] = [];
  if (usages.includes('signature')) {
    // First in the list; the certificates before it stay, so a message the partner signed
    // with the old key just before its switch still verifies (remove them when they expire).
    await tx.all(
      `delete from as2_profile_certificate
        where business_partner_id = ? and field = 'signature_certificate_ids' and certificate_id = ?`,
      [partnerId, certificateId],
    );
    await tx.all(
      `update as2_profile_certificate set position = position + 1
        where business_partner_id = ? and field = 'signature_certificate_ids'`,
      [partnerId],
    );
    await tx.all(
      `insert into as2_profile_certificate (business_partner_id, field, position, certificate_id)
       values (?, 'signature_certificate_ids', 0, ?)`,
      [partnerId, certificateId],
    );
    await renumber(tx, partnerId, ['signature_certificate_ids']);
    changes.push('verifies its signatures first');
  }
  if (usages.includes('encryption')) {
    await tx.all(
      `delete from as2_profile_certificate where business_partner_id = ? and field = 'partner_certificate_id'`,
      [partnerId],
    );
    await tx.all(
      `insert into as2_profile_certificate (business_partner_id, field, position, certificate_id)
       values (?, 'partner_certificate_id', 0, ?)`,
      [partnerId, certificateId],
    );
    changes.push('is encrypted for');
  }
  if (usages.includes('tls')) {
    await addBeside(tx, partnerId, certificateId, ['tls']);
    changes.push('is trusted for its HTTPS endpoint');
  }
  await touch(tx, partnerId);
  return changes;
}

/** Our new certificate, added to the organization's decryption list so partners may encrypt to it. */
export async function addOurDecryption(tx: Tx, organizationId: number, certificateId: number): Promise<void> {
  await tx.all(
    `insert into as2_profile_certificate (local_organization_id, field, position, certificate_id)
     select ?, 'decryption_certificate_ids',
            coalesce((select max(position) + 1 from as2_profile_certificate
                       where local_organization_id = ? and field = 'decryption_certificate_ids'), 0), ?
      where not exists (select 1 from as2_profile_certificate
                         where local_organization_id = ? and field = 'decryption_certificate_ids' and certificate_id = ?)`,
    [organizationId, organizationId, certificateId, organizationId, certificateId],
  );
  await tx.all('update as2_local_profile set updated_at = now() where organization_id = ?', [organizationId]);
}

async function renumber(tx: Tx, partnerId: number, fields: string[]): Promise<void> {
  await tx.all(
    `update as2_profile_certificate pc set position = r.n - 1
       from (select id, row_number() over (partition by field order by position, id) as n
               from as2_profile_certificate where business_partner_id = ? and field = any(?::text[])) r
      where pc.id = r.id`,
    [partnerId, fields],
  );
}

async function touch(tx: Tx, partnerId: number): Promise<void> {
  await tx.all('update as2_remote_profile set updated_at = now() where partner_id = ?', [partnerId]);
}
