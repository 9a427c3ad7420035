/** Stored certificates (docs/api/certificates.md): list and filters, get, description update, delete, PEM download. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { toPem } from '../../../pki/certificates/certificate-info.js';
import { certificateSettings } from '../../../actors/index.js';
import { describeCertificateUsers } from '../../../runtime/index.js';
import { dayMs, expiringWindowDays } from '../../../pki/certificates/validity.js';
import { CertificateSchema, type Certificate } from '../../../storage/entities/certificate.js';
import { certificateUsers } from '../../../storage/queries/certificate-users.js';
import { certificatesByName, lockCertificateForDelete } from '../../../storage/repositories/certificates.js';
import type { Caller } from '../../auth/caller.js';
import { inTransaction, type ApiContext } from '../../context.js';
import { ApiError, notFound, refuseOtherId } from '../../errors.js';
import { likePattern, type Page } from '../../schemas/common.js';
import type {
  CertificateListQuery,
  CertificateRecord,
  CertificateUpdate,
  ExpiringQuery,
} from '../../schemas/certificate.js';
import { certificateJson, certificateName } from './json.js';
import { limits } from '../../../limits/limits.js';

/** Only the description changes after upload; deletion records what identified the certificate. */
const audited = { kind: 'certificate', fields: ['description', 'common_name', 'subject'] };

type Where = Record<string, unknown>;

function textFilter(q: string): Where {
  const like = { $ilike: likePattern(q) };
  const conditions: Where[] = [
    { description: like },
    { common_name: like },
    { subject: like },
    { issuer: like },
    { serial_number: like },
  ];
  // Fingerprints and serial numbers are pasted in many spellings: AB:CD, ab cd, abcd.
  const hex = q.replace(/[\s:]/g, '').toLowerCase();
  if (/^[0-9a-f]+$/.test(hex)) {
    conditions.push({ serial_number: { $ilike: likePattern(hex) } });
    if (hex.length >= 4) conditions.push({ sha256: { $like: `${hex}%` } });
  }
  return { $or: conditions };
}

function statusFilter(status: 'valid' | 'expiring' | 'expired', now: Date): Where {
  const windowEnd = new Date(now.getTime() + expiringWindowDays * dayMs);
  if (status === 'expired') return { not_after: { $lte: now } };
  if (status === 'expiring') return { not_after: { $gt: now, $lte: windowEnd } };
  return { not_after: { $gt: windowEnd } };
}

export async function listCertificates(
  ctx: ApiContext,
  em: EntityManager,
  query: z.output<typeof CertificateListQuery>,
): Promise<Page<CertificateRecord>> {
  const now = ctx.now();
  const filters: Where[] = [];
  if (query.q) filters.push(textFilter(query.q));
  if (query.status) filters.push(statusFilter(query.status, now));
  if (query.key) filters.push({ private_key: query.key === 'present' ? { $ne: null } : null });
  const [rows, total] = await certificatesByName(em, filters.length > 0 ? { $and: filters } : {}, query);
  return { items: rows.map((c) => certificateJson(c, now)), total, limit: query.limit, offset: query.offset };
}

/** Expired and expiring within `days`, soonest first. */
export async function listExpiring(
  ctx: ApiContext,
  em: EntityManager,
  query: z.output<typeof ExpiringQuery>,
): Promise<Page<CertificateRecord>> {
  const now = ctx.now();
  const [rows, total] = await em.findAndCount(
    CertificateSchema,
    { not_after: { $lte: new Date(now.getTime() + query.days * dayMs) } },
    { orderBy: { not_after: 'asc', id: 'asc' }, limit: query.limit, offset: query.offset },
  );
  return { items: rows.map((c) => certificateJson(c, now)), total, limit: query.limit, offset: query.offset };
}

async function load(em: EntityManager, id: number): Promise<Certificate> {
  const certificate = await em.findOne(CertificateSchema, { id });
  if (!certificate) throw notFound('Certificate');
  return certificate;
}

export async function getCertificate(
  ctx: ApiContext,
  em: EntityManager,
  id: number,
): Promise<CertificateRecord> {
  return certificateJson(await load(em, id), ctx.now());
}

export async function updateCertificate(
  ctx: ApiContext,
  caller: Caller,
  id: number,
  body: z.output<typeof CertificateUpdate>,
): Promise<CertificateRecord> {
  refuseOtherId('certificate', body.id, id);
  return inTransaction(ctx, async (em) => {
    const certificate = await load(em, id);
    const before = { ...certificate };
    if (body.description !== undefined) certificate.description = body.description;
    const record = { id, name: certificateName(certificate) };
    if (await ctx.audit.updated(em, caller.actor, audited, record, before, certificate)) await em.flush();
    return certificateJson(certificate, ctx.now());
  });
}

export async function deleteCertificate(ctx: ApiContext, caller: Caller, id: number): Promise<void> {
  await inTransaction(ctx, async (em) => {
    // The row lock makes the check and the delete one step: a profile or plugin configuration
    // being saved now waits for it (its reference check locks the row too), then sees the
    // certificate gone.
    if (!(await lockCertificateForDelete(em, id))) throw notFound('Certificate');
    const certificate = await load(em, id);
    const users = await certificateUsers(em, [id], certificateSettings);
    if (users.length > 0) {
      throw new ApiError(
        'CERTIFICATE_IN_USE',
        `The certificate is used by ${describeCertificateUsers(users)}`,
        {
          users: users
            .slice(0, limits.maxCertificateUsersListed)
            .map(({ kind, name, fields, link }) => ({ kind, name, fields, link })),
          total: users.length,
        },
      );
    }
    const before = {
      description: certificate.description,
      common_name: certificate.common_name,
      subject: certificate.subject,
    };
    em.remove(certificate);
    await em.flush();
    await ctx.audit.deleted(em, caller.actor, audited, { id, name: certificateName(before) }, before);
  });
}

/**
 * The certificate as PEM or DER (for a partner whose software takes only one), never the key;
 * with a file name from its common name.
 */
export async function certificateFile(
  em: EntityManager,
  id: number,
  format: 'pem' | 'der',
): Promise<{ bytes: Buffer | string; fileName: string; mediaType: string }> {
  const certificate = await em.findOne(CertificateSchema, { id }, { populate: ['der'] });
  if (!certificate) throw notFound('Certificate');
  const base =
    certificate.common_name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '') || `certificate-${id}`;
  const der = Buffer.from(certificate.der);
  return format === 'der'
    ? { bytes: der, fileName: `${base}.cer`, mediaType: 'application/pkix-cert' }
    : { bytes: toPem(der), fileName: `${base}.pem`, mediaType: 'application/x-pem-file' };
}
