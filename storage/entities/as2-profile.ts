/**
 * AS2 profiles (docs/api/as2-profiles.md): one per organization (local) or partner (remote), keyed by the
 * party's id. Every certificate a profile names is a row of As2ProfileCertificate.
 */
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAt, updatedAt } from './timestamps.js';

export const As2LocalProfileSchema = defineEntity({
  name: 'As2LocalProfile',
  tableName: 'as2_local_profile',
  properties: {
    organization_id: p.integer().primary().autoincrement(false),
    as2id: p.string().length(128),
    async_mdn_url: p.text(),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
});
export type As2LocalProfile = InferEntity<typeof As2LocalProfileSchema>;

export const As2RemoteProfileSchema = defineEntity({
  name: 'As2RemoteProfile',
  tableName: 'as2_remote_profile',
  properties: {
    partner_id: p.integer().primary().autoincrement(false),
    as2id: p.string().length(128),
    endpoint: p.text(),
    signing_algorithm: p.string().length(16),
    encryption_algorithm: p.string().length(16),
    compression: p.boolean(),
    mdn_mode: p.string().length(8),
    mdn_signed: p.boolean(),
    receipt_timeout_hours: p.integer(),
    http_basic_user: p.text(),
    /** Sealed by the secret box; null when not set. */
    http_basic_password: p.text().nullable(),
    /** Sealed JSON list of {name, value}; null when not set. */
    http_headers: p.text().nullable(),
    tls_verify: p.boolean(),
    /** The interop preset last applied (docs/interop.md); the options below are what the sender uses. */
    interop_preset: p.string().length(32).nullable(),
    signed_attributes: p.boolean(),
    algorithm_protection: p.boolean(),
    transfer_encoding: p.string().length(16),
    body_framing: p.string().length(16),
    filename_quoting: p.string().length(16),
    mic_spelling: p.string().length(16),
    key_transport: p.string().length(16),
    /** ecdh or ecmqv: how pier agrees a key with an EC encryption certificate. */
    key_agreement: p.string().length(16),
    /** draft-ietf-ediint-rfc4130bis: never generate SHA-1, MD5, 3DES or RC2 for this partner. */
    as2bis: p.boolean(),
    /** What pier accepts from the partner (docs/interop.md), independent of what it sends. */
    inbound_signature: p.string().length(16),
    inbound_encryption: p.string().length(16),
    inbound_algorithms: p.string().length(16),
    /** Largest message taken from the partner; null: the receiver's own limit. */
    max_message_mib: p.integer().nullable(),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
});
export type As2RemoteProfile = InferEntity<typeof As2RemoteProfileSchema>;

export const As2ProfileCertificateSchema = defineEntity({
  name: 'As2ProfileCertificate',
  tableName: 'as2_profile_certificate',
  properties: {
    id: p.integer().primary().autoincrement(),
    local_organization_id: p.integer().nullable(),
    business_partner_id: p.integer().nullable(),
    /** The profile field naming the certificate, such as `signing_certificate_id`. */
    field: p.string().length(64),
    /** Order within a list field; 0 for a single-certificate field. */
    position: p.integer(),
    certificate_id: p.integer(),
  },
});
export type As2ProfileCertificate = InferEntity<typeof As2ProfileCertificateSchema>;
