/**
 * PKCS#12 (`.p12`, `.pfx`) in password-integrity mode, legacy (RC2/3DES, SHA-1 MAC) and
 * modern (PBES2 with AES, SHA-256 MAC) alike. Certificates come out byte for byte; keys as
 * loaded KeyObjects. The MAC is checked first, so a wrong password is told apart from a
 * damaged file.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  Asn1Error,
  bytesOf,
  children,
  contentOf,
  is,
  octets,
  oidOf,
  readWhole,
  smallInteger,
  stringOf,
  tagClasses,
  tags,
  type Tlv,
} from '../asn1/tlv.js';
import { visible } from './names.js';
import { cms, macDigests, pkcs12 as oids } from '../certificate-oids.js';
import { decryptWithPassword, PasswordBasedError, pkcs12Kdf } from './password-based.js';
import { KeyParseError, parsePkcs8, type ParsedKey } from './private-key.js';

export interface Pkcs12Contents {
  certificates: { der: Buffer; friendlyName: string }[];
  keys: { key: ParsedKey; friendlyName: string }[];
  notes: string[];
}

export type Pkcs12Problem = 'password-needed' | 'wrong-password' | 'damaged' | 'unsupported';

export class Pkcs12Error extends Error {
  constructor(
    readonly problem: Pkcs12Problem,
    message: string,
  ) {
    super(message);
    this.name = 'Pkcs12Error';
  }
}

/** True when the DER looks like a PFX: SEQUENCE { INTEGER 3, ContentInfo, … }. */
export function isPkcs12(top: Tlv): boolean {
  if (!is(top, tags.sequence)) return false;
  const [version, authSafe] = children(top);
  return is(version, tags.integer) && smallInteger(version) === 3 && is(authSafe, tags.sequence);
}

function explicitContent(contentInfo: Tlv): { type: string; content: Tlv | undefined } {
  const [type, wrapper] = children(contentInfo);
  const content = wrapper && is(wrapper, 0, tagClasses.context) ? children(wrapper)[0] : undefined;
  return { type: oidOf(type!), content };
}

function macMatches(pfx: Tlv[], authSafe: Buffer, password: string | null): boolean {
  const macData = pfx[2]!;
  const [digestInfo, salt, count] = children(macData);
  const [algorithm, digest] = children(digestInfo!);
  const digestOid = oidOf(children(algorithm!)[0]!);
  const md = macDigests[digestOid];
  if (!md)
    throw new Pkcs12Error(
      'unsupported',
      `The file's integrity check uses an unsupported digest (${digestOid})`,
    );
  const iterations = count ? smallInteger(count) : 1;
  const key = pkcs12Kdf(password, contentOf(salt!), 3, iterations, md.bytes, md.name);
  const mac = createHmac(md.name, key).update(authSafe).digest();
  const expected = contentOf(digest!);
  return mac.length === expected.length && timingSafeEqual(mac, expected);
}

function attributes(bag: Tlv[]): { friendlyName: string } {
  let friendlyName = '';
  const set = bag[2];
  if (set && is(set, tags.set)) {
    for (const attribute of children(set)) {
      const [type, values] = children(attribute);
      if (oidOf(type!) === oids.friendlyName) {
        const [value] = children(values!);
        if (value) friendlyName = visible(stringOf(value));
      }
    }
  }
  return { friendlyName };
}

function readBags(safeContents: Buffer, password: string | null, out: Pkcs12Contents, depth = 0): void {
  for (const bag of children(readWhole(safeContents))) {
    const parts = children(bag);
    const type = oidOf(parts[0]!);
    const value = children(parts[1]!)[0]!;
    const { friendlyName } = attributes(parts);
    switch (type) {
      case oids.certBag: {
        const [certType, wrapped] = children(value);
        if (oidOf(certType!) !== oids.x509Certificate) {
          out.notes.push('Skipped a certificate that is not X.509 in the PKCS#12 file');
          break;
        }
        out.certificates.push({ der: Buffer.from(octets(children(wrapped!)[0]!)), friendlyName });
        break;
      }
      case oids.keyBag:
        out.keys.push({ key: parsePkcs8(Buffer.from(bytesOf(value))), friendlyName });
        break;
      case oids.shroudedKeyBag: {
        const [algorithm, encrypted] = children(value);
        const pkcs8 = decryptWithPassword(algorithm!, octets(encrypted!), password);
        out.keys.push({ key: parsePkcs8(pkcs8), friendlyName });
        break;
      }
      case oids.safeContentsBag:
        if (depth > 4) throw new Asn1Error('PKCS#12 bags are nested too deep');
        readBags(Buffer.from(bytesOf(value)), password, out, depth + 1);
        break;
      case oids.crlBag:
        out.notes.push('Skipped a certificate revocation list (CRL) in the PKCS#12 file');
        break;
      default:
        out.notes.push('Skipped a secret or unknown item in the PKCS#12 file');
    }
  }
}

function readAuthSafe(authSafe: Buffer, password: string | null): Pkcs12Contents {
  const out: Pkcs12Contents = { certificates: [], keys: [], notes: [] };
  for (const contentInfo of children(readWhole(authSafe))) {
    const { type, content } = explicitContent(contentInfo);
    if (!content) continue;
    if (type === cms.data) {
      readBags(octets(content), password, out);
    } else if (type === cms.encryptedData) {
      const [, encryptedContentInfo] = children(content);
      const [, algorithm, encrypted] = children(encryptedContentInfo!);
      if (!algorithm || !encrypted) continue;
      readBags(decryptWithPassword(algorithm, octets(encrypted), password), password, out);
    } else {
      out.notes.push('Skipped a part of the PKCS#12 file protected with a public key');
    }
  }
  return out;
}

/**
 * Reads a PKCS#12 file. `password` undefined means none was given: the empty password is
 * tried (files exported "without a password" use it), then no password at all.
 */
export function readPkcs12(der: Buffer, password: string | undefined): Pkcs12Contents {
  let authSafe: Buffer;
  let pfx: Tlv[];
  try {
    pfx = children(readWhole(der));
    const { type, content } = explicitContent(pfx[1]!);
    if (type !== cms.data || !content) {
      throw new Pkcs12Error('unsupported', 'The PKCS#12 file is protected with a public key, not a password');
    }
    authSafe = octets(content);
  } catch (error) {
    if (error instanceof Pkcs12Error) throw error;
    throw new Pkcs12Error('damaged', `The PKCS#12 file is damaged: ${(error as Error).message}`);
  }
  const candidates: (string | null)[] = password === undefined || password === '' ? ['', null] : [password];
  let chosen: string | null | undefined = candidates[0];
  if (pfx[2]) {
    try {
      chosen = candidates.find((p) => macMatches(pfx, authSafe, p));
    } catch (error) {
      if (error instanceof Pkcs12Error) throw error;
      if (error instanceof PasswordBasedError) throw new Pkcs12Error('unsupported', error.message);
      throw new Pkcs12Error('damaged', `The PKCS#12 file is damaged: ${(error as Error).message}`);
    }
    if (chosen === undefined) {
      throw password
        ? new Pkcs12Error('wrong-password', 'The password does not open this PKCS#12 file')
        : new Pkcs12Error('password-needed', 'This PKCS#12 file is protected by a password; enter it');
    }
  }
  try {
    return readAuthSafe(authSafe, chosen ?? null);
  } catch (error) {
    if (error instanceof PasswordBasedError) {
      if (!error.badPassword) throw new Pkcs12Error('unsupported', error.message);
      throw password
        ? new Pkcs12Error('wrong-password', 'The password does not open this PKCS#12 file')
        : new Pkcs12Error('password-needed', 'This PKCS#12 file is protected by a password; enter it');
    }
    if (error instanceof KeyParseError) {
      throw new Pkcs12Error(
        'damaged',
        `The private key in the PKCS#12 file cannot be read: ${error.message}`,
      );
    }
    throw new Pkcs12Error('damaged', `The PKCS#12 file is damaged: ${(error as Error).message}`);
  }
}
