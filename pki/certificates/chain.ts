/**
 * The issuers of a stored certificate that the store also holds, nearest first: what a TLS
 * server sends after its own certificate so that clients trusting only the root can build the
 * path. A candidate counts only when its signature over the certificate verifies (names alone
 * can be copied). The self-signed root is left out: clients must hold it already
 * (RFC 8446 4.4.2), and sending it costs bytes on every handshake.
 */
import { X509Certificate } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

/** Longer paths than this are not seen in practice; the bound also stops a loop of cross-signed CAs. */
const maxIssuers = 8;

interface Row {
  id: number;
  der: Buffer;
  issuer: string;
}

export async function storedIssuers(em: EntityManager, certificateId: number): Promise<X509Certificate[]> {
  const rows = (sql: string, params: unknown[]) =>
    em.getConnection().execute<Row[]>(sql, params, 'all', em.getTransactionContext());
  const [leaf] = await rows('select id, der, issuer from certificate where id = ?', [certificateId]);
  if (!leaf) return [];
  const issuers: X509Certificate[] = [];
  const seen = new Set<number>([leaf.id]);
  let current = { certificate: new X509Certificate(Buffer.from(leaf.der)), issuer: leaf.issuer };
  while (issuers.length < maxIssuers) {
    // A renewed issuer with the same key verifies too: the one valid longest is sent.
    const candidates = await rows(
      'select id, der, issuer from certificate where subject = ? order by not_after desc, id',
      [current.issuer],
    );
    const found = candidates
      .filter((c) => !seen.has(c.id))
      .map((c) => ({ row: c, certificate: new X509Certificate(Buffer.from(c.der)) }))
      .find(
        (c) =>
          current.certificate.checkIssued(c.certificate) &&
          current.certificate.verify(c.certificate.publicKey),
      );
    if (!found) break;
    const selfSigned =
      found.certificate.checkIssued(found.certificate) &&
      found.certificate.verify(found.certificate.publicKey);
    if (selfSigned) break;
    issuers.push(found.certificate);
    seen.add(found.row.id);
    current = { certificate: found.certificate, issuer: found.row.issuer };
  }
  return issuers;
}
