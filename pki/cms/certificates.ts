/**
 * What CMS needs from an X.509 certificate and node:crypto does not expose: the issuer Name and
 * serial number as DER (IssuerAndSerialNumber) and the SubjectKeyIdentifier extension.
 */
import type { X509Certificate } from 'node:crypto';
import { readBer, readOid, readOctets, Asn1Error, type Asn1Node, universalTag } from '../asn1/reader.js';
import { raw, sequence, type Der } from '../asn1/writer.js';
import { oids } from '../oids.js';

export interface CertificateIdentity {
  /** DER of the issuer Name, exactly as in the certificate. */
  issuer: Buffer;
  /** The serial number's INTEGER encoding (tag and length included), exactly as in the certificate. */
  serialNumber: Buffer;
  subjectKeyIdentifier: Buffer | null;
}

const cache = new WeakMap<X509Certificate, CertificateIdentity>();

function certificateIdentity(certificate: X509Certificate): CertificateIdentity {
  const cached = cache.get(certificate);
  if (cached) return cached;
  const tbs = readBer(certificate.raw).child(0, 'tbsCertificate');
  // version [0] is optional: the serial number is the first INTEGER.
  const offset = tbs.child(0, 'version or serial').isContext(0) ? 1 : 0;
  const serial = tbs.child(offset, 'serialNumber');
  const issuer = tbs.child(offset + 2, 'issuer');
  let subjectKeyIdentifier: Buffer | null = null;
  const extensions = tbs.children.find((c) => c.isContext(3))?.children[0];
  for (const extension of extensions?.children ?? []) {
    if (readOid(extension.child(0, 'extnID')) !== oids.subjectKeyIdentifier) continue;
    const value = extension.children[extension.children.length - 1]!;
    subjectKeyIdentifier = readOctets(readBer(readOctets(value)));
  }
  const identity = { issuer: issuer.raw, serialNumber: serial.raw, subjectKeyIdentifier };
  cache.set(certificate, identity);
  return identity;
}

export function issuerAndSerialNumber(certificate: X509Certificate): Der {
  const id = certificateIdentity(certificate);
  return sequence(raw(id.issuer), raw(id.serialNumber));
}

function integerValue(encoding: Buffer): Buffer {
  const content = readBer(encoding).content;
  let i = 0;
  while (i < content.length - 1 && content[i] === 0) i++;
  return content.subarray(i);
}

/** Whether the certificate carries this SubjectKeyIdentifier. */
export function hasSubjectKeyIdentifier(certificate: X509Certificate, ski: Buffer): boolean {
  const id = certificateIdentity(certificate);
  return id.subjectKeyIdentifier !== null && ski.equals(id.subjectKeyIdentifier);
}

/**
 * Whether a SignerIdentifier / RecipientIdentifier names the certificate: an
 * IssuerAndSerialNumber SEQUENCE or a [0] SubjectKeyIdentifier.
 */
export function identifies(identifier: Asn1Node, certificate: X509Certificate): boolean {
  const id = certificateIdentity(certificate);
  if (identifier.isContext(0)) {
    return id.subjectKeyIdentifier !== null && readOctets(identifier).equals(id.subjectKeyIdentifier);
  }
  if (!identifier.isUniversal(universalTag.sequence)) throw new Asn1Error('unknown identifier form');
  const issuer = identifier.child(0, 'issuer').raw;
  const serial = identifier.child(1, 'serialNumber').raw;
  return issuer.equals(id.issuer) && integerValue(serial).equals(integerValue(id.serialNumber));
}
