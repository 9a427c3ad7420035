/**
 * Certificate chains in PKCS#7 / CMS SignedData (`.p7b`, `.p7c`, `openssl crl2pkcs7`): the
 * certificates are taken out byte for byte; CRLs and other certificate kinds are noted.
 */
import { bytesOf, children, is, oidOf, readWhole, tagClasses, tags, type Tlv } from '../asn1/tlv.js';
import { cms } from '../certificate-oids.js';

export interface Pkcs7Contents {
  certificates: Buffer[];
  notes: string[];
}

/** True when the DER is a ContentInfo holding SignedData. */
export function isPkcs7(top: Tlv): boolean {
  if (!is(top, tags.sequence)) return false;
  const [type, content] = children(top);
  return is(type, tags.oid) && oidOf(type) === cms.signedData && is(content, 0, tagClasses.context);
}

export function readPkcs7(der: Buffer): Pkcs7Contents {
  const top = readWhole(der);
  const [, explicit] = children(top);
  const [signedData] = children(explicit!);
  const notes: string[] = [];
  const certificates: Buffer[] = [];
  for (const field of children(signedData!)) {
    if (field.tagClass !== tagClasses.context) continue;
    if (field.tag === 0) {
      let skipped = 0;
      for (const choice of children(field)) {
        // CertificateChoices: a plain certificate is a SEQUENCE; [0]–[3] are other kinds.
        if (is(choice, tags.sequence)) certificates.push(Buffer.from(bytesOf(choice)));
        else skipped++;
      }
      if (skipped > 0) {
        notes.push(`Skipped ${skipped} attribute or extended certificate(s) in the PKCS#7 file`);
      }
    } else if (field.tag === 1) {
      const crls = children(field).length;
      if (crls > 0) notes.push(`Skipped ${crls} certificate revocation list(s) (CRL) in the PKCS#7 file`);
    }
  }
  return { certificates, notes };
}
