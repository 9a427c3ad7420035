/**
 * The file's certificates on the install: matched by fingerprint (the certificate's identity),
 * stored through the certificate store when new, their description updated, a sealed key
 * added to a certificate stored without one. Answers each file name's certificate id.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { certificateInfo } from '../../pki/certificates/certificate-info.js';
import { parsePkcs8, type ParsedKey } from '../../pki/certificates/private-key.js';
import { CertificateSchema } from '../../storage/entities/certificate.js';
import { deleteCertificate, updateCertificate } from '../resources/certificates/service.js';
import { storeCertificates } from '../resources/certificates/store.js';
import type { ConfigFile } from '../schemas/config-file.js';
import { attempt, type ApplyRun } from './apply-context.js';
import { certificateNames } from './names.js';

function derOf(pem: string): Buffer | undefined {
  try {
    return Buffer.from(new X509Certificate(pem).raw);
  } catch {
    return undefined;
  }
}

function openKey(run: ApplyRun, sealed: string): ParsedKey | undefined {
  try {
    return parsePkcs8(run.ctx.secrets.open(sealed));
  } catch {
    return undefined;
  }
}

export async function applyCertificates(run: ApplyRun, file: ConfigFile): Promise<Map<string, number>> {
  const stored = await run.em().find(CertificateSchema, {}, { orderBy: { id: 'asc' } });
  // A name the file does not define may still name a certificate of the install, by its export name.
  const ids = new Map([...certificateNames(stored)].map(([id, name]) => [name, id]));
  const bySha = new Map(stored.map((c) => [c.sha256, c]));
  const kept = new Set<number>();

  for (const [i, entry] of file.certificates.entries()) {
    const path = `certificates[${i}]`;
    const der = derOf(entry.pem);
    if (!der) {
      run.problems[`${path}.pem`] = 'Is not a PEM certificate';
      continue;
    }
    const description = entry.description ?? entry.name;
    const sha256 = createHash('sha256').update(der).digest('hex');
    const existing = bySha.get(sha256);
    let key: ParsedKey | undefined;
    if (typeof entry.private_key === 'object') {
      key = openKey(run, entry.private_key.sealed);
      if (!key) {
        run.problems[`${path}.private_key.sealed`] =
          "Cannot be opened with this install's secret key; seal it on an install with the same key, or import the key first";
        continue;
      }
    } else if (entry.private_key === 'stored' && !existing?.has_private_key) {
      run.problems[`${path}.private_key`] =
        "This install holds no private key for this certificate: upload it first (a PKCS#12 file from the certificate's page on the other install, with Certificates, Upload here), or export the file with the keys sealed (Export all, private keys sealed; `pier config export --seal-keys`)";
      continue;
    }
    if (!existing || (key && !existing.has_private_key)) {
      const done = await attempt(run, path, async () => {
        const em = run.em();
        return em.transactional(async (tx) =>
          storeCertificates(
            run.ctx,
            tx,
            run.caller,
            [{ info: certificateInfo(der), key: key ?? null, description }],
            { addKeys: true },
          ),
        );
      });
      if (!done) continue;
      ids.set(entry.name, done[0]!.certificate.id);
      kept.add(done[0]!.certificate.id);
      if (!existing) continue;
    }
    if (existing) {
      ids.set(entry.name, existing.id);
      kept.add(existing.id);
      if (existing.description !== description) {
        await attempt(run, path, () => updateCertificate(run.ctx, run.caller, existing.id, { description }));
      }
    }
  }
  return ids;
}

/** With --prune: certificates the file does not list go, once nothing uses them. */
export async function pruneCertificates(run: ApplyRun, file: ConfigFile): Promise<void> {
  const wanted = new Set(file.certificates.map((c) => derOf(c.pem)).filter((d) => d !== undefined));
  const shas = new Set([...wanted].map((d) => createHash('sha256').update(d).digest('hex')));
  for (const c of await run.em().find(CertificateSchema, {}, { orderBy: { id: 'asc' } })) {
    if (shas.has(c.sha256)) continue;
    await attempt(run, `certificates (${c.description || c.common_name})`, () =>
      deleteCertificate(run.ctx, run.caller, c.id),
    );
  }
}
