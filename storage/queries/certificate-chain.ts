/**
 * The stored certificates a TLS server's chain is built from (pki/certificates/chain.ts judges
 * them): one by id, and those with a subject, the one valid longest first. SQL, not the entity
 * API: only three columns are needed, and the DER of every candidate would otherwise be loaded
 * into the identity map of the unit of work that starts an instance.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { HeldCertificate } from '../../pki/certificates/chain.js';
import { inEntityTx } from '../sql.js';

export async function storedCertificate(em: EntityManager, id: number): Promise<HeldCertificate | undefined> {
  const [row] = await inEntityTx(em).all<HeldCertificate>(
    'select id, der, issuer from certificate where id = ?',
    [id],
  );
  return row;
}

export function storedWithSubject(em: EntityManager, subject: string): Promise<HeldCertificate[]> {
  return inEntityTx(em).all<HeldCertificate>(
    'select id, der, issuer from certificate where subject = ? order by not_after desc, id',
    [subject],
  );
}
