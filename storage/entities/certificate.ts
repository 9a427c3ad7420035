/** Stored certificates (docs/api/certificates.md) and the pending imports of uploads (docs/api/lifecycles.md#certificate-import-token). */
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAt, updatedAt } from './timestamps.js';

export const CertificateSchema = defineEntity({
  name: 'Certificate',
  tableName: 'certificate',
  properties: {
    id: p.integer().primary().autoincrement(),
    description: p.text(),
    /** Lower-case hex SHA-256 of the DER: the certificate's identity. */
    sha256: p.string().length(64),
    sha1: p.string().length(40),
    der: p.blob().columnType('bytea').lazy(true, false),
    common_name: p.text(),
    subject: p.text(),
    issuer: p.text(),
    serial_number: p.string().length(128),
    not_before: p.datetime().columnType('timestamptz'),
    not_after: p.datetime().columnType('timestamptz'),
    key_algorithm: p.string().length(32),
    key_size: p.integer(),
    key_curve: p.string().length(32),
    signature_algorithm: p.string().length(64),
    key_usage: p.json<string[]>().columnType('jsonb'),
    extended_key_usage: p.json<string[]>().columnType('jsonb'),
    subject_alt_names: p.json<string[]>().columnType('jsonb'),
    is_ca: p.boolean(),
    self_signed: p.boolean(),
    /** PKCS#8 DER sealed by the secret box; loaded only when asked for. */
    private_key: p.text().nullable().lazy(true, false),
    /** Read-only: whether private_key is set, without loading it. */
    has_private_key: p.boolean().formula((table) => `${table.alias}.private_key is not null`),
    private_key_matches: p.boolean(),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
});
export type Certificate = InferEntity<typeof CertificateSchema>;

export const CertificateImportSchema = defineEntity({
  name: 'CertificateImport',
  tableName: 'certificate_import',
  properties: {
    id: p.integer().primary().autoincrement(),
    token_hash: p.string().length(64),
    actor: p.text(),
    /** Sealed JSON of what the upload found, keys included. */
    contents: p.text(),
    expires_at: p.datetime().columnType('timestamptz'),
    created_at: createdAt(),
  },
});
export type CertificateImport = InferEntity<typeof CertificateImportSchema>;

/**
 * A key pair pier made for a certificate signing request, waiting for the CA's certificate
 * (docs/decisions/certificate-requests.md). The key is sealed like a certificate's; when the
 * CA's certificate is uploaded it becomes a certificate record with that key and this row goes.
 */
export const CertificateRequestSchema = defineEntity({
  name: 'CertificateRequest',
  tableName: 'certificate_request',
  properties: {
    id: p.integer().primary().autoincrement(),
    description: p.text(),
    common_name: p.text(),
    subject: p.text(),
    key_algorithm: p.string().length(32),
    key_size: p.integer(),
    key_curve: p.string().length(32),
    signature_algorithm: p.string().length(64),
    /** The PKCS#10 request, DER. */
    csr: p.blob().columnType('bytea'),
    /** PKCS#8 DER sealed by the secret box; loaded only when asked for. */
    private_key: p.text().lazy(true, false),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
});
export type CertificateRequest = InferEntity<typeof CertificateRequestSchema>;
