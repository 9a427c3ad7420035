/**
 * Writing a distinguished name (RFC 5280 4.1.2.4) for certificates and requests pier makes:
 * one attribute per RDN, in the order OpenSSL's `-subj /C=…/O=…/OU=…/CN=…` writes them, so
 * `openssl x509 -subject` prints what the operator typed. Country is a PrintableString and the
 * e-mail address an IA5String (as RFC 5280 requires); the rest are UTF8String.
 */
import { commonNameOid } from '../certificate-oids.js';
import { oid, sequence, setOf, tlv, type Der } from '../asn1/writer.js';

export interface SubjectFields {
  common_name: string;
  organization?: string | undefined;
  organizational_unit?: string | undefined;
  /** Two letters, ISO 3166. */
  country?: string | undefined;
  email?: string | undefined;
}

const tags = { utf8String: 0x0c, printableString: 0x13, ia5String: 0x16 } as const;

/** Attribute types in writing order, with the string type each takes. */
const order: { field: keyof SubjectFields; oid: string; tag: number }[] = [
  { field: 'country', oid: '2.5.4.6', tag: tags.printableString },
  { field: 'organization', oid: '2.5.4.10', tag: tags.utf8String },
  { field: 'organizational_unit', oid: '2.5.4.11', tag: tags.utf8String },
  { field: 'common_name', oid: commonNameOid, tag: tags.utf8String },
  { field: 'email', oid: '1.2.840.113549.1.9.1', tag: tags.ia5String },
];

export function distinguishedName(subject: SubjectFields): Der {
  const rdns: Der[] = [];
  for (const { field, oid: type, tag } of order) {
    const value = subject[field];
    if (value === undefined || value === '') continue;
    const encoding = tag === tags.utf8String ? 'utf8' : 'latin1';
    rdns.push(setOf([sequence(oid(type), tlv(tag, [Buffer.from(value, encoding)]))]));
  }
  return sequence(...rdns);
}
