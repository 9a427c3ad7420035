/**
 * The issuers of a certificate that a collection of certificates also holds, nearest first: what
 * a TLS server sends after its own certificate so that clients trusting only the root can build
 * the path. A candidate counts only when its signature over the certificate verifies (names
 * alone can be copied). The self-signed root is left out: clients must hold it already
 * (RFC 8446 4.4.2), and sending it costs bytes on every handshake.
 *
 * The collection is the caller's (pier's certificate store: storage/queries/certificate-chain.ts);
 * this library only judges the certificates it is handed, so it knows no database.
 */
import { X509Certificate } from 'node:crypto';

/** Longer paths than this are not seen in practice; the bound also stops a loop of cross-signed CAs. */
const maxIssuers = 8;

/** A certificate of the collection: an id that tells it apart, its DER and its issuer's name. */
export interface HeldCertificate {
  id: number;
  der: Uint8Array;
  issuer: string;
}

/**
 * The issuers of `leaf` among the certificates `withSubject` returns for an issuer's name, the
 * one valid longest first among several (a renewed issuer with the same key verifies too).
 */
export async function heldIssuers(
  leaf: HeldCertificate,
  withSubject: (subject: string) => Promise<HeldCertificate[]>,
): Promise<X509Certificate[]> {
  const issuers: X509Certificate[] = [];
  const seen = new Set<number>([leaf.id]);
  let current = { certificate: new X509Certificate(Buffer.from(leaf.der)), issuer: leaf.issuer };
  while (issuers.length < maxIssuers) {
    const candidates = await withSubject(current.issuer);
    const found = candidates
      .filter((c) => !seen.has(c.id))
      .map((c) => ({ held: c, certificate: new X509Certificate(Buffer.from(c.der)) }))
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
    seen.add(found.held.id);
    current = { certificate: found.certificate, issuer: found.held.issuer };
  }
  return issuers;
}
