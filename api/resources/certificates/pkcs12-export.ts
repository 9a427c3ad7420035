/**
 * A stored key with its certificate as a password-protected PKCS#12 file: what OpenAS2's and
 * mendelson's users carry from one install to another. The password is used and dropped; what
 * the audit log keeps is who took the key out, and when.
 */
import { createPrivateKey } from 'node:crypto';
import { writePkcs12 } from '../../../pki/certificates/pkcs12-write.js';
import { CertificateSchema } from '../../../storage/entities/certificate.js';
import type { Caller } from '../../auth/caller.js';
import { freshEm, type ApiContext } from '../../context.js';
import { notFound } from '../../errors.js';
import { certificateName } from './json.js';

export interface Pkcs12File {
  bytes: Buffer;
  fileName: string;
}

export async function exportPkcs12(
  ctx: ApiContext,
  caller: Caller,
  id: number,
  password: string,
): Promise<Pkcs12File> {
  return freshEm(ctx).transactional(async (em) => {
    const certificate = await em.findOne(CertificateSchema, { id }, { populate: ['der', 'private_key'] });
    if (!certificate) throw notFound('Certificate');
    if (!certificate.private_key) {
      throw notFound(
        `Private key of certificate ${id} (this install holds only the certificate; GET /certificates/${id}/download gives it)`,
      );
    }
    const key = createPrivateKey({
      key: ctx.secrets.open(certificate.private_key),
      format: 'der',
      type: 'pkcs8',
    });
    const name = certificateName(certificate);
    const bytes = writePkcs12({
      key,
      certificate: Buffer.from(certificate.der),
      friendlyName: name,
      password,
    });
    await ctx.audit.record(em, {
      actor: caller.actor,
      action: 'export',
      kind: 'certificate',
      record_id: id,
      record_name: name,
      changes: [{ field: 'private_key', new: 'PKCS#12' }],
    });
    const base =
      certificate.common_name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '') || `certificate-${id}`;
    return { bytes, fileName: `${base}.p12` };
  });
}
