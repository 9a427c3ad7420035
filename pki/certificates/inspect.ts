/**
 * Reading an upload: whatever partners email (PEM or DER certificates, PEM bundles, PKCS#7
 * chains, PKCS#12 files, private keys in any common form) becomes a list of certificates, a
 * list of keys paired with them by public key, and notes on what was skipped and why.
 * A file with nothing usable is an UploadProblem naming the form field to fix.
 */
import { X509Certificate } from 'node:crypto';
import { certificateInfo, CertificateParseError, type CertificateInfo } from './certificate-info.js';
import type { ParsedKey } from './private-key.js';
import { readPart, type Collected } from './read-part.js';
import { maxItemsPerUpload, UploadProblem } from './upload-problem.js';

export { maxItemsPerUpload, UploadProblem, type UploadField } from './upload-problem.js';

export interface UploadFiles {
  certificate: Buffer;
  privateKey?: Buffer | undefined;
  /** For PKCS#12 files and encrypted keys. */
  password?: string | undefined;
  /** For an encrypted key in the private_key part when it differs from `password`. */
  privateKeyPassword?: string | undefined;
}

export interface FoundCertificate {
  info: CertificateInfo;
  /** The PKCS#12 friendly name, '' elsewhere. */
  friendlyName: string;
  /** Index in `keys` of the key that belongs to this certificate, or null. */
  keyIndex: number | null;
}

export interface FoundKey {
  key: ParsedKey;
  /** Certificates whose public key is this key's (a renewed certificate may reuse a key). */
  certificateIndexes: number[];
}

export interface Inspection {
  certificates: FoundCertificate[];
  keys: FoundKey[];
  notes: string[];
}

function publicKeyOf(der: Buffer): Buffer | undefined {
  try {
    return new X509Certificate(der).publicKey.export({ type: 'spki', format: 'der' });
  } catch {
    return undefined;
  }
}

export function inspectUpload(files: UploadFiles): Inspection {
  const collected: Collected = { certificates: [], keys: [], notes: [] };
  readPart(
    files.certificate,
    { field: 'certificate', password: files.password, passwordField: 'password' },
    collected,
  );
  if (files.privateKey) {
    const before = collected.keys.length;
    readPart(
      files.privateKey,
      {
        field: 'private_key',
        password: files.privateKeyPassword ?? files.password,
        passwordField: files.privateKeyPassword !== undefined ? 'private_key_password' : 'password',
      },
      collected,
    );
    if (collected.keys.length === before) {
      throw new UploadProblem('private_key', 'The private_key file holds no usable private key');
    }
  }
  if (collected.certificates.length > maxItemsPerUpload) {
    throw new UploadProblem(
      'certificate',
      `The upload holds ${collected.certificates.length} certificates; at most ${maxItemsPerUpload} can be uploaded at once. Split it into smaller files`,
    );
  }

  const notes = [...collected.notes];
  const certificates: (FoundCertificate & { spki: Buffer | undefined })[] = [];
  const seen = new Map<string, number>();
  for (const c of collected.certificates) {
    let info: CertificateInfo;
    try {
      info = certificateInfo(c.der);
    } catch (error) {
      if (!(error instanceof CertificateParseError)) throw error;
      notes.push(`Skipped the certificate${c.where ? ` ${c.where}` : ''}: ${error.message}`);
      continue;
    }
    const times = seen.get(info.sha256);
    if (times !== undefined) {
      seen.set(info.sha256, times + 1);
      continue;
    }
    seen.set(info.sha256, 1);
    certificates.push({ info, friendlyName: c.friendlyName, keyIndex: null, spki: publicKeyOf(c.der) });
  }

  for (const c of certificates) {
    const times = seen.get(c.info.sha256)!;
    if (times > 1) notes.push(`The certificate ${c.info.subject} appears ${times} times; it is listed once`);
  }

  const keys: FoundKey[] = [];
  for (const key of collected.keys) {
    if (keys.some((k) => k.key.spki.equals(key.spki))) continue;
    const certificateIndexes = certificates.flatMap((c, i) => (c.spki?.equals(key.spki) ? [i] : []));
    for (const i of certificateIndexes) certificates[i]!.keyIndex = keys.length;
    if (certificateIndexes.length === 0 && certificates.length > 0) {
      notes.push(`The ${key.algorithm} private key ${keys.length} belongs to none of the certificates found`);
    }
    keys.push({ key, certificateIndexes });
  }

  if (certificates.length === 0 && keys.length === 0) {
    const shown = notes.slice(0, 5).join('; ');
    const why =
      notes.length === 0 ? '' : `: ${shown}${notes.length > 5 ? `; and ${notes.length - 5} more` : ''}`;
    throw new UploadProblem('certificate', `The file holds no certificate or private key${why}`);
  }
  return { certificates: certificates.map(({ spki: _spki, ...c }) => c), keys, notes };
}
