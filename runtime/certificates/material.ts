/**
 * Loading a stored certificate with its private key by id, for the AS2 receiver and sender
 * (through the runtime, which owns the database). The key is opened from the secret box only
 * here, in memory, as a KeyObject; it never goes back out through the API.
 */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SecretBox } from '../secrets/secret-box.js';
import { CertificateSchema } from '../../storage/entities/certificate.js';
import { toPem } from '../../pki/certificates/certificate-info.js';

export interface CertificateMaterial {
  id: number;
  certificate: X509Certificate;
  /** The certificate as PEM, for libraries and worker threads that take text. */
  pem: string;
  /** null when the certificate has no private key. */
  privateKey: KeyObject | null;
  /** False when a stored key does not belong to the certificate; such a key must not be used. */
  privateKeyMatches: boolean;
}

export class CertificateNotFoundError extends Error {
  constructor(readonly id: number) {
    super(`Certificate ${id} does not exist`);
    this.name = 'CertificateNotFoundError';
  }
}

export async function loadCertificateMaterial(
  em: EntityManager,
  secrets: SecretBox,
  id: number,
): Promise<CertificateMaterial> {
  const row = await em.findOne(CertificateSchema, { id }, { populate: ['der', 'private_key'] });
  if (!row) throw new CertificateNotFoundError(id);
  const der = Buffer.from(row.der);
  return {
    id,
    certificate: new X509Certificate(der),
    pem: toPem(der),
    privateKey: row.private_key
      ? createPrivateKey({ key: secrets.open(row.private_key), format: 'der', type: 'pkcs8' })
      : null,
    privateKeyMatches: row.private_key_matches,
  };
}
