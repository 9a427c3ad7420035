/**
 * Storing certificates found in an upload, shared by the direct upload and the import: a new
 * certificate is created; with `addKeys` (the import), the same certificate stored without a
 * key gets the key that belongs to it; anything else already stored is 409 CERTIFICATE_EXISTS
 * (docs/api/certificates.md: the direct upload refuses every stored fingerprint, whatever the format). A batch
 * is stored with one lookup, one insert and one audit write, so importing a large bundle stays
 * quick.
 */
import { X509Certificate } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CertificateInfo } from '../../../pki/certificates/certificate-info.js';
import { colonHex } from '../../../pki/certificates/certificate-info.js';
import type { ParsedKey } from '../../../pki/certificates/private-key.js';
import { diffChanges } from '../../audit/changes.js';
import type { AuditEntry } from '../../audit/recorder.js';
import { CertificateSchema, type Certificate } from '../../../storage/entities/certificate.js';
import { lockFingerprints } from '../../../storage/repositories/certificates.js';
import type { Caller } from '../../auth/caller.js';
import type { ApiContext } from '../../context.js';
import { ApiError } from '../../errors.js';
import { certificateName } from './json.js';

export interface ToStore {
  info: CertificateInfo;
  key: ParsedKey | null;
  description: string;
  /** Added to the details of a 409 about this item (the import's index). */
  details?: Record<string, unknown>;
}

export interface StoreOptions {
  /** A key for a stored certificate that has none is added to it (the import); else 409. */
  addKeys: boolean;
}

/** Where the 409 of a direct upload sends someone who meant to add the key. */
export const addKeyByImport =
  '; to add its private key, use the import: upload the file without a description, then import the certificate with the import token';

export interface Stored {
  certificate: Certificate;
  /** False when a key was added to a certificate already stored. */
  created: boolean;
}

const auditedFields = [
  'description',
  'common_name',
  'subject',
  'fingerprint_sha256',
  'not_after',
  'has_private_key',
  'private_key',
] as const;

/** What the audit log records of a certificate; the key only as "set". */
function auditView(c: Certificate, hasKey: boolean) {
  return {
    description: c.description,
    common_name: c.common_name,
    subject: c.subject,
    fingerprint_sha256: colonHex(c.sha256),
    not_after: c.not_after,
    has_private_key: hasKey,
    private_key: hasKey ? 'set' : undefined,
  };
}

function keyMatches(der: Buffer, key: ParsedKey): boolean {
  try {
    return new X509Certificate(der).checkPrivateKey(key.key);
  } catch {
    return false;
  }
}

function exists(existing: Certificate, problem: string, extra: Record<string, unknown> = {}): ApiError {
  return new ApiError(
    'CERTIFICATE_EXISTS',
    `This certificate is already stored as certificate ${existing.id} (${certificateName(existing)})${problem}`,
    { existing_id: existing.id, ...extra },
  );
}

function create(ctx: ApiContext, em: EntityManager, item: ToStore): Certificate {
  const { info, key } = item;
  const certificate = em.create(CertificateSchema, {
    description: item.description,
    sha256: info.sha256,
    sha1: info.sha1,
    der: info.der,
    common_name: info.common_name,
    subject: info.subject,
    issuer: info.issuer,
    serial_number: info.serial_number,
    not_before: info.not_before,
    not_after: info.not_after,
    key_algorithm: info.key_algorithm,
    key_size: info.key_size,
    key_curve: info.key_curve,
    signature_algorithm: info.signature_algorithm,
    key_usage: info.key_usage,
    extended_key_usage: info.extended_key_usage,
    subject_alt_names: info.subject_alt_names,
    is_ca: info.is_ca,
    self_signed: info.self_signed,
    private_key: key ? ctx.secrets.seal(key.pkcs8) : null,
    private_key_matches: key ? keyMatches(info.der, key) : false,
  });
  certificate.has_private_key = key !== null;
  return certificate;
}

/** Runs inside the caller's transaction; all or none (the first refusal throws). */
export async function storeCertificates(
  ctx: ApiContext,
  em: EntityManager,
  caller: Caller,
  items: ToStore[],
  options: StoreOptions,
): Promise<Stored[]> {
  if (items.length === 0) return [];
  await lockFingerprints(
    em,
    items.map((i) => i.info.sha256),
  );
  const found = await em.find(CertificateSchema, { sha256: { $in: items.map((i) => i.info.sha256) } });
  const existingBySha = new Map(found.map((c) => [c.sha256, c]));
  const stored: Stored[] = [];
  const events: AuditEntry[] = [];
  for (const item of items) {
    const existing = existingBySha.get(item.info.sha256);
    if (!existing) {
      stored.push({ certificate: create(ctx, em, item), created: true });
      continue;
    }
    if (!item.key) throw exists(existing, '', item.details);
    if (existing.has_private_key) throw exists(existing, ', with a private key', item.details);
    if (!keyMatches(item.info.der, item.key)) {
      throw exists(existing, '; the private key sent does not belong to it', item.details);
    }
    if (!options.addKeys) throw exists(existing, addKeyByImport, item.details);
    const before = auditView(existing, false);
    existing.private_key = ctx.secrets.seal(item.key.pkcs8);
    existing.private_key_matches = true;
    existing.has_private_key = true;
    events.push({
      actor: caller.actor,
      action: 'update',
      kind: 'certificate',
      record_id: existing.id,
      record_name: certificateName(existing),
      changes: diffChanges(before, auditView(existing, true), auditedFields, ['private_key']),
    });
    stored.push({ certificate: existing, created: false });
  }
  await em.flush();
  for (const { certificate, created } of stored) {
    if (!created) continue;
    events.push({
      actor: caller.actor,
      action: 'create',
      kind: 'certificate',
      record_id: certificate.id,
      record_name: certificateName(certificate),
      changes: diffChanges(
        undefined,
        auditView(certificate, Boolean(certificate.has_private_key)),
        auditedFields,
        ['private_key'],
      ),
    });
  }
  await ctx.audit.recordMany(em, events);
  return stored;
}
