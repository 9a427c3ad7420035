/**
 * Opening the certificates an instance's settings name (its type's certificateFields) for its
 * start: the chain and the private key go into the thread's start data, never into the stored
 * configuration or a log line. A certificate that is gone or lost its key fails the start with
 * the setting named; one outside its validity dates is still used, with a warning, because
 * refusing to start would cut every partner off at once while the expiry alerts already ask
 * for a renewal.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { certificateUses, type PluginTypeDefinition } from '../../actors/index.js';
import { StartFailure } from '../../protocol/actor-thread.js';
import { heldIssuers } from '../../pki/certificates/chain.js';
import { storedCertificate, storedWithSubject } from '../../storage/queries/certificate-chain.js';
import { CertificateNotFoundError, loadCertificateMaterial } from '../certificates/material.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { StartCertificate } from '../../protocol/worker-host/start-data.js';

export interface OpenedCertificates {
  certificates: Record<string, StartCertificate>;
  /** What the operator should hear about that does not stop the start. */
  warnings: string[];
}

export async function openInstanceCertificates(
  em: EntityManager,
  secrets: SecretBox,
  def: PluginTypeDefinition,
  settings: Record<string, unknown>,
  now: Date,
): Promise<OpenedCertificates> {
  const opened: OpenedCertificates = { certificates: {}, warnings: [] };
  for (const [field, use] of Object.entries(def.certificateFields ?? {})) {
    const id = settings[field];
    if (typeof id !== 'number') continue;
    const { purpose } = certificateUses[use];
    const material = await loadCertificateMaterial(em, secrets, id).catch((error: unknown) => {
      if (error instanceof CertificateNotFoundError)
        throw new StartFailure('CERTIFICATE_MISSING', `${field}: certificate ${id} no longer exists`);
      throw error;
    });
    if (!material.privateKey || !material.privateKeyMatches) {
      const why = material.privateKey ? 'a private key that does not belong to it' : 'no private key';
      throw new StartFailure(
        'CERTIFICATE_UNUSABLE',
        `${field}: certificate ${id} has ${why}; ${purpose} needs its own key`,
      );
    }
    const validFrom = new Date(material.certificate.validFrom);
    const validTo = new Date(material.certificate.validTo);
    if (validTo <= now) {
      opened.warnings.push(
        `${field}: certificate ${id} expired on ${validTo.toISOString()}; ${purpose} with it anyway`,
      );
    } else if (validFrom > now) {
      opened.warnings.push(
        `${field}: certificate ${id} is valid only from ${validFrom.toISOString()}; ${purpose} with it anyway`,
      );
    }
    const leaf = await storedCertificate(em, id);
    const issuers = leaf ? await heldIssuers(leaf, (subject) => storedWithSubject(em, subject)) : [];
    opened.certificates[field] = {
      chain_pem: [material.pem, ...issuers.map((c) => c.toString())].join(''),
      private_key_pem: material.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    };
  }
  return opened;
}
