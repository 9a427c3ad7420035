/**
 * Private keys in every form partners and tools produce: PKCS#1 (RSA), PKCS#8, encrypted
 * PKCS#8, SEC1 (EC), PEM or DER. node:crypto loads them; this file decides which form the
 * bytes are, so a failure can say "needs a password" or "wrong password" rather than an
 * OpenSSL error code.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { Asn1Error, children, is, readWhole, smallInteger, tags } from '../asn1/tlv.js';
import { curveBits } from '../certificate-oids.js';

export interface ParsedKey {
  key: KeyObject;
  /** Unencrypted PKCS#8 DER: the one form keys are stored in (sealed). */
  pkcs8: Buffer;
  /** SubjectPublicKeyInfo DER of the matching public key, to pair keys with certificates. */
  spki: Buffer;
  algorithm: string;
  size: number;
}

export type KeyProblem = 'password-needed' | 'wrong-password' | 'damaged' | 'unsupported';

export class KeyParseError extends Error {
  constructor(
    readonly problem: KeyProblem,
    message: string,
  ) {
    super(message);
    this.name = 'KeyParseError';
  }
}

type DerKind = 'pkcs8' | 'encrypted-pkcs8' | 'pkcs1' | 'sec1';

/** Which private-key structure DER bytes hold, or undefined when none. */
export function derKeyKind(der: Buffer): DerKind | undefined {
  try {
    const top = readWhole(der);
    if (!is(top, tags.sequence)) return undefined;
    const parts = children(top);
    const [a, b, c] = parts;
    if (is(a, tags.sequence) && is(b, tags.octetString) && parts.length === 2) return 'encrypted-pkcs8';
    if (!is(a, tags.integer)) return undefined;
    const version = smallInteger(a);
    if ((version === 0 || version === 1) && is(b, tags.sequence) && is(c, tags.octetString)) return 'pkcs8';
    if (version === 0 && parts.length >= 9 && parts.slice(1, 9).every((p) => is(p, tags.integer))) {
      return 'pkcs1';
    }
    if (version === 1 && is(b, tags.octetString)) return 'sec1';
    return undefined;
  } catch (error) {
    if (error instanceof Asn1Error) return undefined;
    throw error;
  }
}

function describe(key: KeyObject): ParsedKey {
  const details = key.asymmetricKeyDetails ?? {};
  const type = key.asymmetricKeyType ?? 'unknown';
  const names: Record<string, string> = {
    rsa: 'RSA',
    'rsa-pss': 'RSA-PSS',
    ec: 'EC',
    dsa: 'DSA',
    ed25519: 'Ed25519',
    ed448: 'Ed448',
  };
  const size =
    details.modulusLength ??
    (details.namedCurve ? (curveBits[details.namedCurve] ?? 0) : type === 'ed25519' ? 256 : 0);
  return {
    key,
    pkcs8: key.export({ format: 'der', type: 'pkcs8' }),
    spki: createPublicKey(key).export({ format: 'der', type: 'spki' }),
    algorithm: names[type] ?? type,
    size,
  };
}

function load(
  input: { key: Buffer | string; format: 'pem' | 'der'; type?: 'pkcs8' | 'pkcs1' | 'sec1' },
  encrypted: boolean,
  password: string | undefined,
): ParsedKey {
  if (encrypted && !password) {
    throw new KeyParseError('password-needed', 'The private key is encrypted; enter its password');
  }
  try {
    return describe(createPrivateKey({ ...input, ...(encrypted ? { passphrase: password } : {}) }));
  } catch (error) {
    // A wrong password usually fails the padding check, and now and then yields garbage
    // that fails to parse; either way, for an encrypted key the password is to blame.
    if (encrypted) throw new KeyParseError('wrong-password', 'The password does not open the private key');
    const code = (error as { code?: string }).code ?? '';
    if (code.includes('UNSUPPORTED')) {
      throw new KeyParseError('unsupported', 'The private key uses an algorithm this server cannot load');
    }
    throw new KeyParseError('damaged', 'The private key is damaged and cannot be read');
  }
}

/** A PEM block (label and base64 with any headers) holding a private key. */
export function parsePrivateKeyPem(block: string, password: string | undefined): ParsedKey {
  const encrypted =
    /-----BEGIN ENCRYPTED PRIVATE KEY-----/.test(block) || /Proc-Type:\s*4,ENCRYPTED/.test(block);
  return load({ key: block, format: 'pem' }, encrypted, password);
}

export function parsePrivateKeyDer(der: Buffer, password: string | undefined): ParsedKey {
  const kind = derKeyKind(der);
  if (!kind) throw new KeyParseError('damaged', 'The data is not a private key');
  const type = kind === 'encrypted-pkcs8' ? 'pkcs8' : kind;
  return load({ key: der, format: 'der', type }, kind === 'encrypted-pkcs8', password);
}

/** A PKCS#8 key as decrypted from a PKCS#12 bag. */
export function parsePkcs8(der: Buffer): ParsedKey {
  return load({ key: der, format: 'der', type: 'pkcs8' }, false, undefined);
}
