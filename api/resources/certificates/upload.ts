/**
 * POST /certificates: one certificate (with or without its key) and a description is stored
 * at once (201); anything else is described, with an import token (200, docs/api/lifecycles.md#certificate-import-token).
 */
import { inspectUpload, UploadProblem, type Inspection } from '../../../pki/certificates/inspect.js';
import { CertificateSchema } from '../../../storage/entities/certificate.js';
import type { Caller } from '../../auth/caller.js';
import { freshEm, inTransaction, type ApiContext } from '../../context.js';
import { validationError } from '../../errors.js';
import {
  description as descriptionSchema,
  type CertificateRecord,
  type UploadFindings,
} from '../../schemas/certificate.js';
import type { z } from 'zod';
import { detailsFromZod } from '../../validation.js';
import { createImport } from './imports.js';
import type { UploadForm } from './form.js';
import { certificateJson, factsJson } from './json.js';
import { storeCertificates, type Stored } from './store.js';

export type UploadAnswer =
  { status: 201; record: CertificateRecord } | { status: 200; findings: z.output<typeof UploadFindings> };

function inspect(form: UploadForm): Inspection {
  try {
    return inspectUpload({
      certificate: form.certificate!,
      privateKey: form.private_key,
      password: form.password,
      privateKeyPassword: form.private_key_password,
    });
  } catch (error) {
    if (error instanceof UploadProblem) throw validationError({ [error.field]: error.message });
    throw error;
  }
}

function checkedDescription(text: string | undefined): string | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const parsed = descriptionSchema.safeParse(text.trim());
  if (!parsed.success)
    throw validationError({ description: detailsFromZod(parsed.error)._form ?? 'Invalid' });
  return parsed.data;
}

async function findings(
  ctx: ApiContext,
  caller: Caller,
  inspection: Inspection,
): Promise<z.output<typeof UploadFindings>> {
  const stored = await freshEm(ctx).find(
    CertificateSchema,
    { sha256: { $in: inspection.certificates.map((c) => c.info.sha256) } },
    { fields: ['id', 'sha256', 'has_private_key'] },
  );
  const bySha = new Map(stored.map((s) => [s.sha256, s]));
  const now = ctx.now();
  const notes = [...inspection.notes];
  if (inspection.certificates.length === 0) {
    notes.push(
      'No certificate was found. A private key is stored only with its certificate: upload both together',
    );
  }
  return {
    found: {
      certificates: inspection.certificates.map((c, index) => {
        const existing = bySha.get(c.info.sha256);
        return {
          index,
          ...factsJson(c.info, now),
          friendly_name: c.friendlyName,
          key_index: c.keyIndex,
          existing_id: existing?.id ?? null,
          adds_private_key: existing !== undefined && !existing.has_private_key && c.keyIndex !== null,
        };
      }),
      keys: inspection.keys.map((k, index) => ({
        index,
        key_algorithm: k.key.algorithm,
        key_size: k.key.size,
        certificate_indexes: k.certificateIndexes,
      })),
    },
    notes,
    ...(await createImport(ctx, caller, inspection)),
  };
}

/** Why a key sent with a certificate is refused, in the words of the upload form. */
export function mismatchedKey(algorithm: string): string {
  return `This ${algorithm} private key does not belong to the certificate (their public keys differ): choose the key that was made with this certificate, or upload the certificate alone`;
}

export async function uploadCertificates(
  ctx: ApiContext,
  caller: Caller,
  form: UploadForm,
): Promise<UploadAnswer> {
  const description = checkedDescription(form.description);
  const inspection = inspect(form);
  const [single] = inspection.certificates;
  if (single && inspection.certificates.length === 1 && inspection.keys.length <= 1 && description) {
    const key = inspection.keys[0]?.key ?? null;
    // A key that does not belong to the certificate can neither sign nor decrypt for it: it is
    // refused, not stored with a warning (docs/decisions/mismatched-private-key.md).
    if (key && single.keyIndex === null) throw validationError({ private_key: mismatchedKey(key.algorithm) });
    // A stored fingerprint is 409 here whatever came with it (docs/api/certificates.md); adding a key to a
    // stored certificate is the import's work, which the 409's message points to.
    const [{ certificate }] = (await inTransaction(ctx, (em) =>
      storeCertificates(ctx, em, caller, [{ info: single.info, key, description }], { addKeys: false }),
    )) as [Stored];
    return { status: 201, record: certificateJson(certificate, ctx.now()) };
  }
  return { status: 200, findings: await findings(ctx, caller, inspection) };
}
