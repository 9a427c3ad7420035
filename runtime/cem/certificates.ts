/**
 * A partner's certificate received in a certificate exchange request, stored once like an
 * uploaded one (by its SHA-256): an already stored certificate is used as it is.
 */
import { certificateInfo, CertificateParseError } from '../../pki/certificates/certificate-info.js';
import type { Tx } from '../../storage/sql.js';
import { CemRefusal } from './refusal.js';

export interface StoredCertificate {
  id: number;
  name: string;
  created: boolean;
}

/** The certificate's fields; one that does not parse refuses the request. */
function infoOf(der: Buffer) {
  try {
    return certificateInfo(der);
  } catch (error) {
    if (error instanceof CertificateParseError) throw new CemRefusal({ certificate: error.message });
    throw error;
  }
}

/**
 * A stored certificate with the same issuer and serial number as `der` but another fingerprint:
 * a twin that signer identification by issuer and serial (CMS IssuerAndSerialNumber) could not
 * tell from it. A CA never issues two; a partner's request carrying one is refused.
 */
export async function twinOf(tx: Tx, der: Buffer): Promise<{ id: number; name: string } | null> {
  const info = infoOf(der);
  const [twin] = await tx.all<{ id: number; name: string }>(
    `select id, coalesce(nullif(description, ''), nullif(common_name, ''), subject) as name
       from certificate where issuer = ? and serial_number = ? and sha256 <> ? order by id limit 1`,
    [info.issuer, info.serial_number, info.sha256],
  );
  return twin ?? null;
}

export async function storeReceivedCertificate(
  tx: Tx,
  der: Buffer,
  description: string,
  at: Date,
): Promise<StoredCertificate> {
  const info = infoOf(der);
  // The lock the upload takes (storage/repositories/certificates.ts lockFingerprints), so the
  // same certificate uploaded and received at once is stored once.
  await tx.all('select pg_advisory_xact_lock(?::bigint)', [parseInt(info.sha256.slice(0, 15), 16)]);
  const [found] = await tx.all<{ id: number; name: string }>(
    `select id, coalesce(nullif(description, ''), nullif(common_name, ''), subject) as name
       from certificate where sha256 = ?`,
    [info.sha256],
  );
  if (found) return { ...found, created: false };
  const [row] = await tx.all<{ id: number }>(
    `insert into certificate (description, sha256, sha1, der, common_name, subject, issuer, serial_number,
        not_before, not_after, key_algorithm, key_size, key_curve, signature_algorithm, key_usage,
        extended_key_usage, subject_alt_names, is_ca, self_signed, private_key, private_key_matches,
        created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?::jsonb, ?, ?, null, false, ?, ?)
     returning id`,
    [
      description,
      info.sha256,
      info.sha1,
      info.der,
      info.common_name,
      info.subject,
      info.issuer,
      info.serial_number,
      info.not_before,
      info.not_after,
      info.key_algorithm,
      info.key_size,
      info.key_curve,
      info.signature_algorithm,
      JSON.stringify(info.key_usage),
      JSON.stringify(info.extended_key_usage),
      JSON.stringify(info.subject_alt_names),
      info.is_ca,
      info.self_signed,
      at,
      at,
    ],
  );
  return { id: row!.id, name: description, created: true };
}
