/**
 * A certs-only PKCS#7 (RFC 5751 §3.6, `application/pkcs7-mime; smime-type=certs-only`): a
 * SignedData with no content and no signers that carries certificates, the form
 * `openssl crl2pkcs7 -nocrl -certfile` writes. readPkcs7 (pkcs7.ts) reads it back.
 */
import { integer, oid, raw, sequence, setOf, tlv, toBuffer } from '../asn1/writer.js';
import { cms } from '../certificate-oids.js';

export function buildCertsOnly(certificates: readonly Buffer[]): Buffer {
  const signedData = sequence(
    integer(1),
    setOf([]), // digestAlgorithms: none, nothing is signed
    sequence(oid(cms.data)), // encapContentInfo without content
    tlv(0xa0, certificates.map(raw)), // [0] IMPLICIT certificates
    setOf([]), // signerInfos: none
  );
  return toBuffer(sequence(oid(cms.signedData), tlv(0xa0, [signedData])));
}
