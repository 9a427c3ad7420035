/**
 * Password-based encryption as PKCS#12 files use it: the legacy PKCS#12 schemes (SHA-1 with
 * 3DES or RC2, RFC 7292 appendix B and C) and PBES2 with PBKDF2 and AES (RFC 8018), plus the
 * PKCS#12 MAC key. The hashing and ciphers run in node:crypto; RC2, which OpenSSL 3 keeps in
 * its legacy provider, is pier's own (pki/cms/rc2.ts, RFC 2268).
 */
import { createDecipheriv, createHash, pbkdf2Sync } from 'node:crypto';
import { children, contentOf, is, oidOf, smallInteger, tags, type Tlv } from '../asn1/tlv.js';
import { Rc2CbcDecipher } from '../cms/rc2.js';
import { oids } from '../oids.js';

/** More iterations than any real file uses; more would let an upload burn minutes of CPU. */
export const maxIterations = 1_000_000;

export class PasswordBasedError extends Error {
  constructor(
    message: string,
    /** True when the likely cause is the password (decryption produced garbage). */
    readonly badPassword: boolean,
  ) {
    super(message);
    this.name = 'PasswordBasedError';
  }
}

const blockSizes: Record<string, number> = { sha1: 64, sha224: 64, sha256: 64, sha384: 128, sha512: 128 };

/** The password as PKCS#12 hashes it: UTF-16BE with a terminating zero; null for no password. */
function bmpPassword(password: string | null): Buffer {
  if (password === null) return Buffer.alloc(0);
  return Buffer.from(`${password}\u0000`, 'utf16le').swap16();
}

function repeatTo(source: Buffer, blockSize: number): Buffer {
  if (source.length === 0) return source;
  const length = blockSize * Math.ceil(source.length / blockSize);
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) out[i] = source[i % source.length]!;
  return out;
}

/** RFC 7292 appendix B.2: id 1 derives keys, 2 IVs, 3 MAC keys. */
export function pkcs12Kdf(
  password: string | null,
  salt: Buffer,
  id: 1 | 2 | 3,
  iterations: number,
  bytes: number,
  hash = 'sha1',
): Buffer {
  const v = blockSizes[hash];
  if (!v) throw new PasswordBasedError(`The digest ${hash} is not supported`, false);
  const d = Buffer.alloc(v, id);
  const i = Buffer.concat([repeatTo(salt, v), repeatTo(bmpPassword(password), v)]);
  const out: Buffer[] = [];
  let produced = 0;
  while (produced < bytes) {
    let a = createHash(hash).update(d).update(i).digest();
    for (let r = 1; r < iterations; r++) a = createHash(hash).update(a).digest();
    out.push(a);
    produced += a.length;
    if (produced >= bytes) break;
    const b = repeatTo(a, v);
    for (let j = 0; j < i.length; j += v) {
      let carry = 1;
      for (let k = v - 1; k >= 0; k--) {
        const sum = i[j + k]! + b[k]! + carry;
        i[j + k] = sum & 0xff;
        carry = sum >> 8;
      }
    }
  }
  return Buffer.concat(out).subarray(0, bytes);
}

const pkcs12Schemes: Record<string, { cipher: 'des-ede3-cbc' | 'des-ede-cbc' | 'rc2'; key: number }> = {
  '1.2.840.113549.1.12.1.3': { cipher: 'des-ede3-cbc', key: 24 },
  '1.2.840.113549.1.12.1.4': { cipher: 'des-ede-cbc', key: 16 },
  '1.2.840.113549.1.12.1.5': { cipher: 'rc2', key: 16 },
  '1.2.840.113549.1.12.1.6': { cipher: 'rc2', key: 5 },
};

const pbes2Ciphers: Record<string, { name: string; key: number }> = {
  [oids.aes128Cbc]: { name: 'aes-128-cbc', key: 16 },
  [oids.aes192Cbc]: { name: 'aes-192-cbc', key: 24 },
  [oids.aes256Cbc]: { name: 'aes-256-cbc', key: 32 },
  [oids.desEde3Cbc]: { name: 'des-ede3-cbc', key: 24 },
};

const prfs: Record<string, string> = {
  '1.2.840.113549.2.7': 'sha1',
  '1.2.840.113549.2.8': 'sha224',
  '1.2.840.113549.2.9': 'sha256',
  '1.2.840.113549.2.10': 'sha384',
  '1.2.840.113549.2.11': 'sha512',
};

const pbes2 = '1.2.840.113549.1.5.13';
const pbkdf2 = '1.2.840.113549.1.5.12';

function checkIterations(count: number): number {
  if (count < 1 || count > maxIterations) {
    throw new PasswordBasedError(
      `The file asks for ${count} key derivation iterations; this server accepts 1 to ${maxIterations}`,
      false,
    );
  }
  return count;
}

function decipher(name: string, key: Buffer, iv: Buffer, data: Buffer): Buffer {
  try {
    const d = createDecipheriv(name, key, iv);
    return Buffer.concat([d.update(data), d.final()]);
  } catch {
    throw new PasswordBasedError('Decryption failed', true);
  }
}

/** PKCS#12's RC2 (RFC 7292 appendix C): the effective key bits are the key's own length. */
function rc2Decrypt(key: Buffer, iv: Buffer, data: Buffer): Buffer {
  try {
    const cipher = new Rc2CbcDecipher(key, key.length * 8, iv);
    return Buffer.concat([cipher.update(data), cipher.final()]);
  } catch {
    throw new PasswordBasedError('Decryption failed', true);
  }
}

/** Decrypts `data` encrypted under the AlgorithmIdentifier `algorithm`; null is "no password" (not ""). */
export function decryptWithPassword(algorithm: Tlv, data: Buffer, password: string | null): Buffer {
  const [oidTlv, params] = children(algorithm);
  const oid = oidOf(oidTlv!);
  const legacy = pkcs12Schemes[oid];
  if (legacy && params) {
    const [salt, count] = children(params);
    const iterations = checkIterations(smallInteger(count!));
    const saltBytes = contentOf(salt!);
    const key = pkcs12Kdf(password, saltBytes, 1, iterations, legacy.key);
    const iv = pkcs12Kdf(password, saltBytes, 2, iterations, 8);
    return legacy.cipher === 'rc2' ? rc2Decrypt(key, iv, data) : decipher(legacy.cipher, key, iv, data);
  }
  if (oid === pbes2 && params) {
    const [kdf, scheme] = children(params);
    const [kdfOid, kdfParams] = children(kdf!);
    if (oidOf(kdfOid!) !== pbkdf2 || !kdfParams) {
      throw new PasswordBasedError('The file uses a key derivation other than PBKDF2', false);
    }
    const kdfFields = children(kdfParams);
    const salt = contentOf(kdfFields[0]!);
    const iterations = checkIterations(smallInteger(kdfFields[1]!));
    const prfField = kdfFields.find((f) => is(f, tags.sequence));
    const prf = prfField ? prfs[oidOf(children(prfField)[0]!)] : 'sha1';
    const [cipherOid, iv] = children(scheme!);
    const cipher = pbes2Ciphers[oidOf(cipherOid!)];
    if (!prf || !cipher || !iv) {
      throw new PasswordBasedError('The file is encrypted with a cipher this server does not support', false);
    }
    const key = pbkdf2Sync(Buffer.from(password ?? '', 'utf8'), salt, iterations, cipher.key, prf);
    return decipher(cipher.name, key, contentOf(iv), data);
  }
  throw new PasswordBasedError(`The file is encrypted with an unsupported scheme (${oid})`, false);
}
