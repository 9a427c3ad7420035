/**
 * The certificate statements the API needs beyond loading entities: the list in name order,
 * and the locks that keep a delete and the saves that refer to a certificate from crossing.
 */
import { raw, type EntityManager, type FilterQuery } from '@mikro-orm/postgresql';
import { CertificateSchema, type Certificate } from '../entities/certificate.js';

/** A page of the certificates matching `where`, by common name ignoring case, then id; with the total. */
export function certificatesByName(
  em: EntityManager,
  where: FilterQuery<Certificate>,
  page: { limit: number; offset: number },
): Promise<[Certificate[], number]> {
  return em.findAndCount(CertificateSchema, where, {
    // A fresh fragment per query: MikroORM forgets a raw fragment once a query has used it.
    orderBy: [{ [raw((alias) => `lower(${alias}.common_name)`)]: 'asc' }, { id: 'asc' }],
    limit: page.limit,
    offset: page.offset,
  });
}

/** What a profile or plugin configuration checks of a certificate it names. */
export interface CertificateFacts {
  id: number;
  /** The description, else the common name, else the subject. */
  name: string;
  key_algorithm: string;
  /** The curve of an EC key as OpenSSL names it (prime256v1 …), '' for other keys. */
  key_curve: string;
  has_key: boolean;
  private_key_matches: boolean;
  extended_key_usage: string[];
}

/**
 * The facts of the certificates a save names, locked (KEY SHARE) until its transaction ends: a
 * delete running at the same time waits for it, or has removed the certificate first (and the
 * save sees it gone).
 */
export async function certificateFactsLocked(
  em: EntityManager,
  ids: readonly number[],
): Promise<CertificateFacts[]> {
  if (ids.length === 0) return [];
  return em.getConnection().execute<CertificateFacts[]>(
    `select id, coalesce(nullif(description, ''), nullif(common_name, ''), subject) as name, key_algorithm,
            key_curve, private_key is not null as has_key, private_key_matches, extended_key_usage
       from certificate where id in (${ids.map(() => '?').join(', ')}) for key share`,
    [...ids],
    'all',
    em.getTransactionContext(),
  );
}

/**
 * Locks the certificate for its delete (FOR UPDATE): the check that nothing uses it and the
 * delete become one step, since every save naming it takes KEY SHARE first. False when it does not exist.
 */
export async function lockCertificateForDelete(em: EntityManager, id: number): Promise<boolean> {
  const locked = await em
    .getConnection()
    .execute<{ id: number }[]>(
      'select id from certificate where id = ? for update',
      [id],
      'all',
      em.getTransactionContext(),
    );
  return locked.length > 0;
}

/**
 * Transaction-scoped advisory locks per fingerprint (its first 15 hex digits), taken in one
 * order, so two uploads of the same certificate take turns and two imports cannot deadlock.
 */
export async function lockFingerprints(em: EntityManager, sha256s: readonly string[]): Promise<void> {
  const keys = [...new Set(sha256s.map((s) => parseInt(s.slice(0, 15), 16)))].sort((a, b) => a - b);
  await em
    .getConnection()
    .execute(
      `select pg_advisory_xact_lock(k) from (values ${keys.map(() => '(?::bigint)').join(', ')}) as v(k) order by k`,
      keys,
      'all',
      em.getTransactionContext(),
    );
}
