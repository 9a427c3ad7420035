/** Certificates as the API shows them (docs/api/certificates.md): one shape for list, get, update, upload and import. */
import type { CertificateInfo } from '../../../pki/certificates/certificate-info.js';
import { colonHex } from '../../../pki/certificates/certificate-info.js';
import { certificateState, daysRemaining } from '../../../pki/certificates/validity.js';
import type { Certificate } from '../../../storage/entities/certificate.js';
import { iso } from '../../schemas/common.js';
import type { CertificateRecord } from '../../schemas/certificate.js';

type Facts = Omit<CertificateInfo, 'der' | 'sha1' | 'sha256' | 'not_before' | 'not_after'> & {
  sha1: string;
  sha256: string;
  not_before: Date;
  not_after: Date;
};

/** The fields every certificate shows, stored or just found in an upload. */
export function factsJson(c: Facts, now: Date) {
  return {
    common_name: c.common_name,
    subject: c.subject,
    issuer: c.issuer,
    serial_number: c.serial_number,
    not_before: iso(c.not_before),
    not_after: iso(c.not_after),
    state: certificateState(c.not_after, now),
    days_remaining: daysRemaining(c.not_after, now),
    key_algorithm: c.key_algorithm,
    key_size: c.key_size,
    key_curve: c.key_curve,
    signature_algorithm: c.signature_algorithm,
    key_usage: c.key_usage,
    extended_key_usage: c.extended_key_usage,
    subject_alt_names: c.subject_alt_names,
    is_ca: c.is_ca,
    self_signed: c.self_signed,
    fingerprint_sha1: colonHex(c.sha1),
    fingerprint_sha256: colonHex(c.sha256),
  };
}

export function certificateJson(c: Certificate, now: Date): CertificateRecord {
  return {
    id: c.id,
    description: c.description,
    ...factsJson(c, now),
    has_private_key: Boolean(c.has_private_key),
    private_key_matches: c.private_key_matches,
    created_at: iso(c.created_at),
    updated_at: iso(c.updated_at),
  };
}

/** The name an operator knows a certificate by, for audit events and messages. */
export function certificateName(c: { description: string; common_name: string; subject: string }): string {
  return c.description || c.common_name || c.subject;
}
