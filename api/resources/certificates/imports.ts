/**
 * Import tokens (docs/api/lifecycles.md#certificate-import-token): what an upload found is kept, sealed, for ten minutes in the
 * database (any pier process of a cluster may receive the import), bound to the caller who
 * uploaded it. An import stores the chosen certificates, each with its paired key, all or none.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { certificateInfo } from '../../../pki/certificates/certificate-info.js';
import type { Inspection } from '../../../pki/certificates/inspect.js';
import { parsePkcs8 } from '../../../pki/certificates/private-key.js';
import { CertificateImportSchema } from '../../../storage/entities/certificate.js';
import type { Caller } from '../../auth/caller.js';
import { freshEm, inTransaction, type ApiContext } from '../../context.js';
import { validationError } from '../../errors.js';
import { iso } from '../../schemas/common.js';
import { importTokenLifetimeMs, type CertificateImportBody } from '../../schemas/certificate.js';
import type { CertificateRecord } from '../../schemas/certificate.js';
import { certificateJson } from './json.js';
import { storeCertificates } from './store.js';

interface ImportContents {
  certificates: { der: string; friendly_name: string; key_index: number | null }[];
  /** PKCS#8 DER, base64. */
  keys: string[];
}

function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Keeps what an upload found; returns the token and when it expires. */
export async function createImport(
  ctx: ApiContext,
  caller: Caller,
  inspection: Inspection,
): Promise<{ import_token: string; expires_at: string }> {
  const token = randomBytes(32).toString('base64url');
  const now = ctx.now();
  const expiresAt = new Date(now.getTime() + importTokenLifetimeMs);
  const contents: ImportContents = {
    certificates: inspection.certificates.map((c) => ({
      der: c.info.der.toString('base64'),
      friendly_name: c.friendlyName,
      key_index: c.keyIndex,
    })),
    keys: inspection.keys.map((k) => k.key.pkcs8.toString('base64')),
  };
  const em = freshEm(ctx);
  // Expired imports are of no use to anyone; clearing them here keeps the table small.
  await em.nativeDelete(CertificateImportSchema, { expires_at: { $lte: now } });
  em.create(CertificateImportSchema, {
    token_hash: tokenHash(token),
    actor: caller.actor,
    contents: ctx.secrets.seal(JSON.stringify(contents)),
    expires_at: expiresAt,
  });
  await em.flush();
  return { import_token: token, expires_at: iso(expiresAt) };
}

async function loadImport(ctx: ApiContext, em: EntityManager, caller: Caller, token: string) {
  const row = await em.findOne(CertificateImportSchema, {
    token_hash: tokenHash(token),
    actor: caller.actor,
  });
  if (!row) throw validationError({ import_token: 'Unknown import token; upload the file again' });
  if (row.expires_at.getTime() <= ctx.now().getTime()) {
    throw validationError({
      import_token: 'The import token has expired (it lasts 10 minutes); upload the file again',
    });
  }
  return { row, contents: JSON.parse(ctx.secrets.openText(row.contents)) as ImportContents };
}

function checkChoices(contents: ImportContents, chosen: { index: number }[]): void {
  const seen = new Set<number>();
  for (const { index } of chosen) {
    if (index >= contents.certificates.length) {
      const count = contents.certificates.length;
      throw validationError({
        certificates: `Index ${index} is not in the upload: it found ${count} certificate${count === 1 ? '' : 's'} (indexes from 0)`,
      });
    }
    if (seen.has(index)) throw validationError({ certificates: `Index ${index} is listed twice` });
    seen.add(index);
  }
}

export async function importCertificates(
  ctx: ApiContext,
  caller: Caller,
  body: z.output<typeof CertificateImportBody>,
): Promise<{ certificates: CertificateRecord[] }> {
  return inTransaction(ctx, async (em) => {
    const { row, contents } = await loadImport(ctx, em, caller, body.import_token);
    checkChoices(contents, body.certificates);
    const items = body.certificates.map((choice) => {
      const found = contents.certificates[choice.index]!;
      const info = certificateInfo(Buffer.from(found.der, 'base64'));
      const key =
        found.key_index === null ? null : parsePkcs8(Buffer.from(contents.keys[found.key_index]!, 'base64'));
      const description =
        choice.description ?? (found.friendly_name || info.common_name || info.subject).slice(0, 1000);
      return { info, key, description, details: { index: choice.index } };
    });
    const now = ctx.now();
    // The import is where a stored certificate without a key gets the key found with it.
    const stored = (await storeCertificates(ctx, em, caller, items, { addKeys: true })).map((s) =>
      certificateJson(s.certificate, now),
    );
    // One use: a second import of the same token would only find every certificate stored.
    em.remove(row);
    await em.flush();
    return { certificates: stored };
  });
}
