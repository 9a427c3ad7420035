/**
 * EnvelopedData (RFC 5652 §6) with CBC ciphers and AuthEnvelopedData (RFC 5083) with AES-GCM
 * (RFC 5084), for RSA key transport recipients. Encrypting writes DER; decrypting reads BER.
 */
import type { KeyObject, X509Certificate } from 'node:crypto';
import { CmsError, failingWith } from './cms-error.js';
import {
  contentEncryptionAlgorithms,
  type ContentEncryption,
  type KeyTransport,
  type ReadableContentEncryption,
} from '../algorithms/encryption-algorithms.js';
import { oids } from '../oids.js';
import { Asn1Error, octetChunks, readOctets, type Asn1Node } from '../asn1/reader.js';
import { integer, octetString, oid, sequence, setOf, tlv, toBuffer, type Der } from '../asn1/writer.js';
import { identifies, issuerAndSerialNumber } from './certificates.js';
import { decryptContent, encryptContent, readContentAlgorithm } from './content-encryption.js';
import { readContentInfo } from './content-info.js';
import { keyTransportOf, unwrapKey, wrapKey, type KeyTransportUsed } from './key-transport.js';

export interface EncryptOptions {
  algorithm: ContentEncryption;
  certificate: X509Certificate;
  /** Default `rsa-pkcs1`, what nearly every partner reads. */
  keyTransport?: KeyTransport;
}

/** DER ContentInfo: EnvelopedData for CBC ciphers, AuthEnvelopedData for GCM. */
export function encryptEnveloped(content: readonly Buffer[], options: EncryptOptions): Buffer {
  return toBuffer(encryptEnvelopedChunks(content, options));
}

/** The same as chunks, the ciphertext not copied: for writing straight to a socket or file. */
export function encryptEnvelopedChunks(content: readonly Buffer[], options: EncryptOptions): Der {
  const encrypted = encryptContent(options.algorithm, content);
  const recipient = recipientInfo(options, encrypted.key);
  encrypted.key.fill(0);
  const encryptedContentInfo = sequence(
    oid(oids.data),
    encrypted.algorithm,
    // [0] IMPLICIT OCTET STRING, primitive: the ciphertext chunks are not copied here.
    tlv(0x80, encrypted.ciphertext),
  );
  const gcm = contentEncryptionAlgorithms[options.algorithm].mode === 'gcm';
  const body: Der[] = [integer(0), setOf([recipient]), encryptedContentInfo];
  if (gcm) body.push(octetString(encrypted.tag!));
  return sequence(oid(gcm ? oids.authEnvelopedData : oids.envelopedData), tlv(0xa0, [sequence(...body)]));
}

/** KeyTransRecipientInfo: the content-encryption key wrapped for the certificate's RSA key. */
export function recipientInfo(options: EncryptOptions, contentKey: Buffer): Der {
  const wrapped = wrapKey(options.certificate, contentKey, options.keyTransport ?? 'rsa-pkcs1');
  return sequence(
    integer(0),
    issuerAndSerialNumber(options.certificate),
    wrapped.algorithm,
    octetString(wrapped.encryptedKey),
  );
}

export interface DecryptionKey {
  certificate: X509Certificate;
  privateKey: KeyObject;
}

export interface Decrypted {
  content: Buffer;
  algorithm: ReadableContentEncryption;
  keyTransport: KeyTransportUsed;
  /** The certificate of ours the message was encrypted for. */
  recipient: X509Certificate;
  /** AuthEnvelopedData (AES-GCM): the content was also authenticated. */
  authenticated: boolean;
}

interface Parsed {
  authenticated: boolean;
  recipients: readonly Asn1Node[];
  encryptedContentInfo: Asn1Node;
  mac: Buffer | null;
  authAttrs: Buffer | null;
}

function parse(der: Buffer): Parsed {
  const info = readContentInfo(der);
  const authenticated = info.type === oids.authEnvelopedData;
  if (!authenticated && info.type !== oids.envelopedData)
    throw new Asn1Error(`not EnvelopedData but ${info.type}`);
  const fields = info.content.children;
  // version, [0] originatorInfo?, recipientInfos, encryptedContentInfo, ...
  let i = 1;
  if (fields[i]?.isContext(0)) i++;
  const recipients = info.content.child(i, 'recipientInfos').children;
  const encryptedContentInfo = info.content.child(i + 1, 'encryptedContentInfo');
  let mac: Buffer | null = null;
  let authAttrs: Buffer | null = null;
  if (authenticated) {
    let j = i + 2;
    if (fields[j]?.isContext(1)) {
      authAttrs = Buffer.from(fields[j]!.raw);
      authAttrs[0] = 0x31; // authenticated as a SET OF (RFC 5083 §2.2)
      j++;
    }
    mac = readOctets(info.content.child(j, 'mac'));
  }
  return { authenticated, recipients, encryptedContentInfo, mac, authAttrs };
}

/**
 * Decrypts with the first of `keys` the message names as a recipient (or, when it names none,
 * with each key in turn). Every failure is a CmsError with decryption-failed.
 */
export function decryptEnveloped(der: Buffer, keys: readonly DecryptionKey[]): Decrypted {
  const parsed = failingWith('decryption-failed', 'unreadable EnvelopedData', () => parse(der));
  const { algorithm, ciphertext } = failingWith('decryption-failed', 'unreadable encrypted content', () => {
    const eci = parsed.encryptedContentInfo;
    const algorithm = readContentAlgorithm(eci.child(1, 'contentEncryptionAlgorithm'));
    const field = eci.children[2];
    if (!field?.isContext(0)) throw new Asn1Error('no encrypted content (detached content is not supported)');
    return { algorithm, ciphertext: octetChunks(field) };
  });
  const attempts = decryptionAttempts(parsed.recipients, keys);
  let lastError: unknown = new Error('the message is not encrypted for any of our certificates');
  for (const { recipient, key } of attempts) {
    try {
      const keyAlgorithm = recipient.child(2, 'keyEncryptionAlgorithm');
      const contentKey = unwrapKey(
        key.privateKey,
        keyAlgorithm,
        readOctets(recipient.child(3, 'encryptedKey')),
        algorithm.keyBytes,
      );
      const content = decryptContent(
        algorithm,
        contentKey,
        ciphertext,
        parsed.authenticated ? { tag: parsed.mac!, aad: parsed.authAttrs } : undefined,
      );
      contentKey.fill(0);
      return {
        content,
        algorithm: algorithm.name,
        keyTransport: keyTransportOf(keyAlgorithm),
        recipient: key.certificate,
        authenticated: parsed.authenticated,
      };
    } catch (error) {
      lastError = error;
    }
  }
  const mismatch = recipientMismatch(parsed.recipients, keys);
  throw new CmsError('decryption-failed', `cannot decrypt: ${mismatch ?? (lastError as Error).message}`, {
    cause: lastError,
  });
}

/**
 * The recipient and key pairs to try, in order: those where the recipient names our
 * certificate, or every pair when none does. Shared with the streaming reader (stream/).
 */
export function decryptionAttempts(
  recipients: readonly Asn1Node[],
  keys: readonly DecryptionKey[],
): { recipient: Asn1Node; key: DecryptionKey }[] {
  // Key transport recipients only (SEQUENCE); key agreement and others are [n]-tagged.
  const transports = recipients.filter((r) => r.isUniversal(16));
  const attempts: { recipient: Asn1Node; key: DecryptionKey }[] = [];
  for (const recipient of transports) {
    for (const key of keys) {
      if (named(recipient, key.certificate)) attempts.push({ recipient, key });
    }
  }
  if (attempts.length === 0) {
    for (const recipient of transports) for (const key of keys) attempts.push({ recipient, key });
  }
  return attempts;
}

/**
 * When no recipient of the message names a certificate pier holds: which certificates the message
 * was encrypted for and which pier holds, by serial number, so the operator sees the mismatch
 * (the partner uses an old or another certificate). Null when a recipient names one of ours.
 */
export function recipientMismatch(
  recipients: readonly Asn1Node[],
  keys: readonly DecryptionKey[],
): string | null {
  const transports = recipients.filter((r) => r.isUniversal(16));
  if (transports.some((r) => keys.some((k) => named(r, k.certificate)))) return null;
  const theirs = transports.map((r) => {
    try {
      const rid = r.child(1, 'rid');
      if (rid.isContext(0)) return `subject key identifier ${readOctets(rid).toString('hex')}`;
      return `serial ${serialText(rid.child(1, 'serialNumber').raw)}`;
    } catch {
      return 'an unreadable recipient';
    }
  });
  const ours = keys.map(
    (k) => `${k.certificate.subject.replace(/\n/g, ', ')} (serial ${k.certificate.serialNumber})`,
  );
  return (
    `the message is encrypted for the certificate with ${theirs.join(', ') || 'no key transport recipient'}; ` +
    `pier holds ${ours.join('; ') || 'no decryption certificate'} for this partnership`
  );
}

/** An INTEGER's DER as upper-case hex without leading zero bytes, as X509Certificate.serialNumber writes it. */
function serialText(der: Buffer): string {
  const lengthBytes = der[1]! & 0x80 ? (der[1]! & 0x7f) + 2 : 2;
  let value = der.subarray(lengthBytes);
  while (value.length > 1 && value[0] === 0) value = value.subarray(1);
  return value.toString('hex').toUpperCase();
}

function named(recipient: Asn1Node, certificate: X509Certificate): boolean {
  try {
    return identifies(recipient.child(1, 'rid'), certificate);
  } catch {
    return false;
  }
}
