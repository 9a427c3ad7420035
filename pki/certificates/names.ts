/** Distinguished names and subject alternative names as operators read them. */
import { children, contentOf, is, oidOf, stringOf, tagClasses, tags, type Tlv } from '../asn1/tlv.js';
import { commonNameOid, nameAttributes } from '../certificate-oids.js';

export interface ParsedName {
  /** RFC 4514 form, most specific first: `CN=as2.acme.example, O=Acme\, Inc., C=DE`. */
  text: string;
  /** The most specific common name, or '' when the name has none. */
  commonName: string;
}

/** Control characters (NUL among them) written as \\xx: certificate text is stored and shown, never trusted. */
export function visible(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

function escapeValue(value: string): string {
  let out = visible(value.replace(/[\\,+"<>;=]/g, (c) => `\\${c}`));
  if (out.startsWith('#') || out.startsWith(' ')) out = `\\${out}`;
  if (out.endsWith(' ') && out.length > 1) out = `${out.slice(0, -1)}\\ `;
  return out;
}

/** Name ::= SEQUENCE OF RelativeDistinguishedName (SET OF AttributeTypeAndValue). */
export function parseName(name: Tlv): ParsedName {
  const rdns: string[] = [];
  let commonName = '';
  for (const rdn of children(name)) {
    const parts: string[] = [];
    for (const atv of children(rdn)) {
      const [type, value] = children(atv);
      if (!type || !value) continue;
      const oid = oidOf(type);
      const text = stringOf(value);
      if (oid === commonNameOid) commonName = visible(text);
      parts.push(`${nameAttributes[oid] ?? oid}=${escapeValue(text)}`);
    }
    rdns.push(parts.join('+'));
  }
  return { text: rdns.reverse().join(', '), commonName };
}

function ipText(bytes: Buffer): string {
  if (bytes.length === 4) return [...bytes].join('.');
  if (bytes.length === 16) {
    const groups: string[] = [];
    for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i).toString(16));
    return groups.join(':');
  }
  return bytes.toString('hex');
}

/** GeneralNames of the subjectAltName extension, as `DNS:…`, `email:…`, `URI:…`, `IP:…`. */
export function parseGeneralNames(sequence: Tlv): string[] {
  const out: string[] = [];
  for (const name of children(sequence)) {
    if (name.tagClass !== tagClasses.context) continue;
    switch (name.tag) {
      case 1:
        out.push(`email:${visible(contentOf(name).toString('latin1'))}`);
        break;
      case 2:
        out.push(`DNS:${visible(contentOf(name).toString('latin1'))}`);
        break;
      case 6:
        out.push(`URI:${visible(contentOf(name).toString('latin1'))}`);
        break;
      case 7:
        out.push(`IP:${ipText(contentOf(name))}`);
        break;
      case 4: {
        const [inner] = children(name);
        if (is(inner, tags.sequence)) out.push(`DirName:${parseName(inner).text}`);
        break;
      }
      default:
        out.push('othername');
    }
  }
  return out;
}
