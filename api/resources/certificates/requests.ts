/**
 * Certificate signing requests waiting for their CA (docs/decisions/certificate-requests.md):
 * list, get, the CSR as PEM, delete, and completion, which stores the CA's certificate with the
 * request's key and removes the request in one transaction. A certificate made for another key
 * is refused; nothing is stored then.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { toPem } from '../../../pki/certificates/certificate-info.js';
import { inspectUpload, UploadProblem } from '../../../pki/certificates/inspect.js';
import { parsePkcs8 } from '../../../pki/certificates/private-key.js';
import { CertificateRequestSchema, type CertificateRequest } from '../../../storage/entities/certificate.js';
import type { Caller } from '../../auth/caller.js';
import { inTransaction, type ApiContext } from '../../context.js';
import { notFound, validationError } from '../../errors.js';
import { iso, type Page } from '../../schemas/common.js';
import type { CertificateRecord } from '../../schemas/certificate.js';
import type { CertificateRequestRecord, CompleteRequestBody } from '../../schemas/certificate-generate.js';
import { certificateJson } from './json.js';
import { storeCertificates, type Stored } from './store.js';

/** The audit log records a request's description, subject and key type; the key only as "set". */
export const auditedRequest = {
  kind: 'certificate-request',
  fields: ['description', 'subject', 'key', 'private_key'],
  secrets: ['private_key'],
};

export function requestJson(r: CertificateRequest): CertificateRequestRecord {
  return {
    id: r.id,
    description: r.description,
    state: 'awaiting_certificate',
    common_name: r.common_name,
    subject: r.subject,
    key_algorithm: r.key_algorithm,
    key_size: r.key_size,
    key_curve: r.key_curve,
    signature_algorithm: r.signature_algorithm,
    csr_pem: toPem(Buffer.from(r.csr), 'CERTIFICATE REQUEST'),
    has_private_key: true,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

export async function listRequests(
  em: EntityManager,
  paging: { limit: number; offset: number },
): Promise<Page<CertificateRequestRecord>> {
  const [rows, total] = await em.findAndCount(
    CertificateRequestSchema,
    {},
    { orderBy: { created_at: 'desc', id: 'desc' }, limit: paging.limit, offset: paging.offset },
  );
  return { items: rows.map(requestJson), total, limit: paging.limit, offset: paging.offset };
}

async function load(em: EntityManager, id: number, withKey = false): Promise<CertificateRequest> {
  const row = await em.findOne(
    CertificateRequestSchema,
    { id },
    withKey ? { populate: ['private_key'] } : {},
  );
  if (!row) throw notFound('Certificate request');
  return row;
}

export async function getRequest(em: EntityManager, id: number): Promise<CertificateRequestRecord> {
  return requestJson(await load(em, id));
}

/** The CSR as PEM, with a file name from its common name. */
export async function requestPem(em: EntityManager, id: number): Promise<{ pem: string; fileName: string }> {
  const row = await load(em, id);
  const base = row.common_name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '') || `request-${id}`;
  return { pem: toPem(Buffer.from(row.csr), 'CERTIFICATE REQUEST'), fileName: `${base}.csr` };
}

export async function deleteRequest(ctx: ApiContext, caller: Caller, id: number): Promise<void> {
  await inTransaction(ctx, async (em) => {
    const row = await load(em, id);
    const before = { description: row.description, subject: row.subject };
    em.remove(row);
    await em.flush();
    await ctx.audit.deleted(em, caller.actor, auditedRequest, { id, name: row.description }, before);
  });
}

/**
 * Stores the CA's certificate with the request's key. The text may hold a chain; the one
 * certificate for this key is stored, and a text without it is refused on `certificate`.
 */
export async function completeRequest(
  ctx: ApiContext,
  caller: Caller,
  id: number,
  body: z.output<typeof CompleteRequestBody>,
): Promise<CertificateRecord> {
  return inTransaction(ctx, async (em) => {
    const row = await load(em, id, true);
    const key = parsePkcs8(ctx.secrets.open(row.private_key));
    let found;
    try {
      found = inspectUpload({
        certificate: Buffer.from(body.certificate),
        privateKey: Buffer.from(toPem(key.pkcs8, 'PRIVATE KEY')),
      });
    } catch (error) {
      // The key part is the request's own; whatever is wrong is in the certificate text.
      if (error instanceof UploadProblem) throw validationError({ certificate: error.message });
      throw error;
    }
    if (found.certificates.length === 0) {
      throw validationError({ certificate: 'No certificate was found: paste the PEM the CA sent' });
    }
    const index = found.keys[0]?.certificateIndexes[0];
    if (index === undefined) {
      throw validationError({
        certificate: `The certificate is for another key: it does not belong to this request's ${row.key_algorithm} key. Send the CA the CSR of this request, or upload the certificate issued for it`,
      });
    }
    const description = body.description?.trim() || row.description;
    const [{ certificate }] = (await storeCertificates(
      ctx,
      em,
      caller,
      [{ info: found.certificates[index]!.info, key, description }],
      { addKeys: false },
    )) as [Stored];
    em.remove(row);
    await em.flush();
    await ctx.audit.deleted(
      em,
      caller.actor,
      auditedRequest,
      { id, name: row.description },
      { description: row.description, subject: row.subject },
    );
    return certificateJson(certificate, ctx.now());
  });
}
