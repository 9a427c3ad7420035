/**
 * What an X.509 certificate says, read once when it is stored: node:crypto parses and checks
 * the certificate; the fields Node 20 does not expose (signature algorithm, key usage bits,
 * names in RFC 4514 order) are read from its DER.
 */
import { createHash, X509Certificate, type KeyObject } from 'node:crypto';
import {
  Asn1Error,
  children,
  contentOf,
  is,
  oidOf,
  readWhole,
  tagClasses,
  tags,
  type Tlv,
} from '../asn1/tlv.js';
import { parseGeneralNames, parseName } from './names.js';
import {
  curveBits,
  extendedKeyUsages,
  extensions,
  keyUsageBits,
  signatureAlgorithms,
} from '../certificate-oids.js';

export interface CertificateInfo {
  der: Buffer;
  /** Lower-case hex, no separators: the identity of a stored certificate. */
  sha256: string;
  sha1: string;
  common_name: string;
  subject: string;
  issuer: string;
  /** Upper-case hex without separators, as OpenSSL prints it. */
  serial_number: string;
  not_before: Date;
  not_after: Date;
  /** RSA, RSA-PSS, EC, Ed25519, Ed448, DSA, or the key's OID when Node does not know it. */
  key_algorithm: string;
  /** Bits: the modulus for RSA and DSA, the curve size for EC. */
  key_size: number;
  /** The named curve of an EC key; '' otherwise. */
  key_curve: string;
  signature_algorithm: string;
  key_usage: string[];
  extended_key_usage: string[];
  subject_alt_names: string[];
  is_ca: boolean;
  self_signed: boolean;
}

/** A DER certificate that does not parse; the message says why in plain words. */
export class CertificateParseError extends Error {
  constructor(
    message: string,
    readonly truncated = false,
  ) {
    super(message);
    this.name = 'CertificateParseError';
  }
}

function time(tlv: Tlv | undefined): Date {
  if (!tlv || (!is(tlv, tags.utcTime) && !is(tlv, tags.generalizedTime))) {
    throw new Asn1Error('Expected a time in the validity period');
  }
  const text = contentOf(tlv).toString('latin1');
  const m = /^(\d{2}|\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?(?:\.\d+)?Z$/.exec(text);
  if (!m) throw new Asn1Error(`Unreadable time ${text}`);
  let year = Number(m[1]);
  if (m[1]!.length === 2) year += year < 50 ? 2000 : 1900;
  return new Date(
    Date.UTC(year, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0)),
  );
}

function keyDescription(key: KeyObject): Pick<CertificateInfo, 'key_algorithm' | 'key_size' | 'key_curve'> {
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return { key_algorithm: 'RSA', key_size: details.modulusLength ?? 0, key_curve: '' };
    case 'rsa-pss':
      return { key_algorithm: 'RSA-PSS', key_size: details.modulusLength ?? 0, key_curve: '' };
    case 'dsa':
      return { key_algorithm: 'DSA', key_size: details.modulusLength ?? 0, key_curve: '' };
    case 'ec': {
      const curve = details.namedCurve ?? '';
      return { key_algorithm: 'EC', key_size: curveBits[curve] ?? 0, key_curve: curve };
    }
    case 'ed25519':
      return { key_algorithm: 'Ed25519', key_size: 256, key_curve: '' };
    case 'ed448':
      return { key_algorithm: 'Ed448', key_size: 456, key_curve: '' };
    default:
      return { key_algorithm: key.asymmetricKeyType ?? 'unknown', key_size: 0, key_curve: '' };
  }
}

interface ExtensionValues {
  key_usage: string[];
  extended_key_usage: string[];
  subject_alt_names: string[];
}

function readExtensions(tbsFields: Tlv[]): ExtensionValues {
  const out: ExtensionValues = { key_usage: [], extended_key_usage: [], subject_alt_names: [] };
  const wrapper = tbsFields.find((f) => f.tagClass === tagClasses.context && f.tag === 3);
  if (!wrapper) return out;
  const [list] = children(wrapper);
  if (!list) return out;
  for (const extension of children(list)) {
    const parts = children(extension);
    const oid = oidOf(parts[0]!);
    const value = parts[parts.length - 1]!;
    if (!is(value, tags.octetString)) continue;
    const inner = readWhole(Buffer.from(contentOf(value)));
    if (oid === extensions.keyUsage && is(inner, tags.bitString)) {
      const bits = contentOf(inner).subarray(1);
      keyUsageBits.forEach((name, i) => {
        if (((bits[i >> 3] ?? 0) & (0x80 >> (i & 7))) !== 0) out.key_usage.push(name);
      });
    } else if (oid === extensions.extendedKeyUsage && is(inner, tags.sequence)) {
      out.extended_key_usage = children(inner).map((o) => {
        const id = oidOf(o);
        return extendedKeyUsages[id] ?? id;
      });
    } else if (oid === extensions.subjectAltName && is(inner, tags.sequence)) {
      out.subject_alt_names = parseGeneralNames(inner);
    }
  }
  return out;
}

/** Parses a DER certificate; throws CertificateParseError with an operator-readable reason. */
export function certificateInfo(der: Buffer): CertificateInfo {
  let x509: X509Certificate;
  let certificate: Tlv;
  try {
    certificate = readWhole(der);
  } catch (error) {
    const truncated = error instanceof Asn1Error && error.truncated;
    throw new CertificateParseError(
      truncated
        ? 'The certificate is truncated: the file ends before the certificate does'
        : `The certificate is damaged: ${(error as Error).message}`,
      truncated,
    );
  }
  try {
    x509 = new X509Certificate(der);
  } catch {
    throw new CertificateParseError('The data is not a valid X.509 certificate');
  }
  try {
    const [tbs, signatureAlgorithm] = children(certificate);
    const fields = children(tbs!);
    // TBSCertificate: [0] version (optional), serial, signature, issuer, validity, subject, key, …
    const base = fields[0]?.tagClass === tagClasses.context && fields[0].tag === 0 ? 1 : 0;
    const issuer = parseName(fields[base + 2]!);
    const validity = children(fields[base + 3]!);
    const subject = parseName(fields[base + 4]!);
    const signatureOid = oidOf(children(signatureAlgorithm!)[0]!);
    let key: Pick<CertificateInfo, 'key_algorithm' | 'key_size' | 'key_curve'>;
    let selfSigned = false;
    try {
      key = keyDescription(x509.publicKey);
      selfSigned = x509.subject === x509.issuer && x509.verify(x509.publicKey);
    } catch {
      // A key type OpenSSL cannot load (GOST, SM2 on some builds): still show the certificate.
      const spki = children(fields[base + 5]!);
      key = { key_algorithm: oidOf(children(spki[0]!)[0]!), key_size: 0, key_curve: '' };
    }
    return {
      der,
      sha256: createHash('sha256').update(der).digest('hex'),
      sha1: createHash('sha1').update(der).digest('hex'),
      common_name: subject.commonName,
      subject: subject.text,
      issuer: issuer.text,
      serial_number: x509.serialNumber.toUpperCase(),
      not_before: time(validity[0]),
      not_after: time(validity[1]),
      ...key,
      signature_algorithm: signatureAlgorithms[signatureOid] ?? signatureOid,
      ...readExtensions(fields),
      is_ca: x509.ca,
      self_signed: selfSigned,
    };
  } catch (error) {
    if (error instanceof CertificateParseError) throw error;
    throw new CertificateParseError(`The certificate is damaged: ${(error as Error).message}`);
  }
}

/** Upper-case hex pairs joined by colons, as `openssl x509 -fingerprint` prints them. */
export function colonHex(hex: string): string {
  return hex.toUpperCase().replace(/(..)(?!$)/g, '$1:');
}

export function toPem(der: Buffer, label = 'CERTIFICATE'): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
