/** How CEM documents name a certificate: XML Signature's X509IssuerName and X509SerialNumber. */
import { X509Certificate } from 'node:crypto';
import type { CertificateReference } from './vocabulary.js';

export function referenceOf(der: Buffer): CertificateReference {
  const x509 = new X509Certificate(der);
  return { issuer: rfc2253(x509.issuer), serial: BigInt(`0x${x509.serialNumber}`).toString(10) };
}

/**
 * Node writes the issuer one attribute a line, outermost first, with RFC 2253's escapes
 * already made; RFC 2253 reverses the order and separates with commas.
 */
function rfc2253(lines: string): string {
  return lines
    .split('\n')
    .filter((l) => l !== '')
    .reverse()
    .join(',');
}

/**
 * Whether a reference names this certificate. The serial number decides (decimal or hex as
 * some partners write it); the issuer is compared without blanks and case, since partners
 * differ in spacing and in the order of the name's attributes.
 */
export function sameCertificate(reference: CertificateReference, der: Buffer): boolean {
  const own = referenceOf(der);
  const serial = reference.serial.trim();
  const serialMatches = /^\d+$/.test(serial)
    ? BigInt(serial) === BigInt(own.serial)
    : /^(0x)?[0-9a-f:]+$/i.test(serial) &&
      BigInt(`0x${serial.replace(/^0x|:/gi, '')}`) === BigInt(own.serial);
  if (!serialMatches) return false;
  if (reference.issuer.trim() === '') return true;
  const attributes = (name: string) =>
    name
      .split(/(?<!\\),/)
      .map((a) => a.replace(/\s+/g, '').toLowerCase())
      .sort()
      .join(',');
  return attributes(reference.issuer) === attributes(own.issuer);
}
