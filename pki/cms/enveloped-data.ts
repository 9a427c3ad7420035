/**
 * EnvelopedData (RFC 5652 §6) with CBC ciphers and AuthEnvelopedData (RFC 5083) with AES-GCM
 * (RFC 5084), for RSA key transport recipients (key-transport.ts) and EC key agreement
 * recipients (key-agreement.ts, RFC 5753). Encrypting writes DER; decrypting reads BER.
 */
import type { KeyObject, X509Certificate } from 'node:crypto';
import { CmsError, failingWith } from './cms-error.js';
import {
  contentEncryptionAlgorithms,
  type ContentEncryption,
  type KeyTransport,
  type ReadableContentEncryption,
} from '../algorithms/encryption-algorithms.js';
import type { KeyAgreementChoice, KeyAgreementUsed } from '../algorithms/key-agreement-algorithms.js';
import { oids } from '../oids.js';
import { Asn1Error, octetChunks, readOctets, type Asn1Node } from '../asn1/reader.js';
import { integer, octetString, oid, sequence, setOf, tlv, toBuffer, type Der } from '../asn1/writer.js';
import { identifies, issuerAndSerialNumber } from './certificates.js';
import { decryptContent, encryptContent, readContentAlgorithm } from './content-encryption.js';
import { readContentInfo } from './content-info.js';
import { keyTransportOf, unwrapKey, wrapKey, type KeyTransportUsed } from './key-transport.js';
import {
  agreeAndUnwrap,
  agreementNames,
  ecCurveOf,
  keyAgreeRecipientInfo,
  readKeyAgreement,
  type KeyAgreement,
  type MqvOriginator,
} from './key-agreement.js';

/** RSA key transport or EC key agreement (ECDH, ECMQV), as protocols.as2 reports it. */
export type ContentKeyDelivery = KeyTransportUsed | KeyAgreementUsed;

export interface EncryptOptions {
  algorithm: ContentEncryption;
  certificate: X509Certificate;
  /** For an RSA certificate; default `rsa-pkcs1`, what nearly every partner reads. An EC certificate gets key agreement. */
  keyTransport?: KeyTransport;
  /** For an EC certificate; default `ecdh` (ephemeral-static). `ecmqv` needs `originator`. */
  keyAgreement?: KeyAgreementChoice;
  /** 1-pass ECMQV: our static EC key on the certificate's curve, with its certificate. */
  originator?: MqvOriginator | null;
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
  const body: Der[] = [integer(envelopedVersion(options, gcm)), setOf([recipient]), encryptedContentInfo];
  if (gcm) body.push(octetString(encrypted.tag!));
  return sequence(oid(gcm ? oids.authEnvelopedData : oids.envelopedData), tlv(0xa0, [sequence(...body)]));
}

/**
 * The version RFC 5652 §6.1 asks for: 0 with only key transport recipients, 2 with a key
 * agreement one (version 3). AuthEnvelopedData is always 0 (RFC 5083 §2.1).
 */
export function envelopedVersion(options: EncryptOptions, authenticated: boolean): number {
  return !authenticated && ecCurveOf(options.certificate.publicKey) !== null ? 2 : 0;
}

/**
 * The RecipientInfo for the certificate: KeyAgreeRecipientInfo (ECDH or 1-pass ECMQV) for an EC
 * key, KeyTransRecipientInfo for an RSA key.
 */
export function recipientInfo(options: EncryptOptions, contentKey: Buffer): Der {
  if (ecCurveOf(options.certificate.publicKey) !== null) {
    if (options.keyAgreement !== 'ecmqv') return keyAgreeRecipientInfo(options.certificate, contentKey);
    if (!options.originator) throw new Error('1-pass ECMQV needs a static EC key of ours (the originator)');
    return keyAgreeRecipientInfo(options.certificate, contentKey, { originator: options.originator });
  }
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
  /** How the content key came: RSA key transport, or the key agreement scheme (`ecdh-sha256kdf`, `ecmqv-sha1kdf`, …). */
  keyTransport: ContentKeyDelivery;
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
 * with each key in turn). Every failure is a CmsError with decryption-failed. `originators`: the
 * partner's certificates, where a 1-pass ECMQV message may name its originator's static key.
 */
export function decryptEnveloped(
  der: Buffer,
  keys: readonly DecryptionKey[],
  originators: readonly X509Certificate[] = [],
): Decrypted {
  const parsed = failingWith('decryption-failed', 'unreadable EnvelopedData', () => parse(der));
  const { algorithm, ciphertext } = failingWith('decryption-failed', 'unreadable encrypted content', () => {
    const eci = parsed.encryptedContentInfo;
    const algorithm = readContentAlgorithm(eci.child(1, 'contentEncryptionAlgorithm'));
    const field = eci.children[2];
    if (!field?.isContext(0)) throw new Asn1Error('no encrypted content (detached content is not supported)');
    return { algorithm, ciphertext: octetChunks(field) };
  });
  // Made only on failure: an Error captures the stack, which every message paid for here.
  let lastError: Error | null = null;
  for (const attempt of decryptionAttempts(parsed.recipients, keys)) {
    try {
      const { contentKey, keyTransport } = unwrapContentKey(attempt, algorithm.keyBytes, originators);
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
        keyTransport,
        recipient: attempt.key.certificate,
        authenticated: parsed.authenticated,
      };
    } catch (error) {
      lastError = error as Error;
    }
  }
  lastError ??= new Error('the message is not encrypted for any of our certificates');
  const mismatch = recipientMismatch(parsed.recipients, keys);
  throw new CmsError('decryption-failed', `cannot decrypt: ${mismatch ?? lastError.message}`, {
    cause: lastError,
  });
}

/**
 * One way to the content key: a key transport recipient, or one RecipientEncryptedKey of a key
 * agreement recipient, with the key of ours to try on it.
 */
export interface DecryptionAttempt {
  key: DecryptionKey;
  /** KeyTransRecipientInfo, when the recipient is one. */
  transport?: Asn1Node;
  /** The key agreement and the wrapped key for this recipient, when it is one. */
  agreement?: { agreement: KeyAgreement; encryptedKey: Buffer };
}

/** A recipient of the message as pier reads it; null for kinds it cannot use (KEK, password, other). */
interface Slot {
  rid: Asn1Node | null;
  transport?: Asn1Node;
  agreement?: { agreement: KeyAgreement; encryptedKey: Buffer };
  /** Why a key agreement recipient cannot be used (static-static ECDH, unknown KDF or wrap). */
  problem?: string;
}

function slotsOf(recipients: readonly Asn1Node[]): Slot[] {
  const slots: Slot[] = [];
  for (const recipient of recipients) {
    if (recipient.isUniversal(16)) {
      slots.push({ rid: recipient.children[1] ?? null, transport: recipient });
    } else if (recipient.isContext(1)) {
      let agreement: KeyAgreement;
      try {
        agreement = readKeyAgreement(recipient);
      } catch (error) {
        // Told to the operator when nothing else decrypts the message.
        slots.push({ rid: null, problem: (error as Error).message });
        continue;
      }
      for (const { rid, encryptedKey } of agreement.recipients)
        slots.push({ rid, agreement: { agreement, encryptedKey } });
    }
  }
  return slots;
}

function slotNames(slot: Slot, certificate: X509Certificate): boolean {
  if (!slot.rid) return false;
  try {
    return slot.agreement ? agreementNames(slot.rid, certificate) : identifies(slot.rid, certificate);
  } catch {
    return false;
  }
}

/** Key transport needs an RSA key, key agreement an EC one: other pairs cannot succeed. */
function fits(slot: Slot, key: DecryptionKey): boolean {
  return (ecCurveOf(key.privateKey) !== null) === (slot.agreement !== undefined);
}

/**
 * The recipient and key pairs to try, in order: those where the recipient names our
 * certificate, or every pair of fitting kinds when none does. Shared with the streaming reader (stream/).
 */
export function decryptionAttempts(
  recipients: readonly Asn1Node[],
  keys: readonly DecryptionKey[],
): DecryptionAttempt[] {
  const slots = slotsOf(recipients).filter((s) => s.transport || s.agreement);
  const attempts: DecryptionAttempt[] = [];
  for (const slot of slots) {
    for (const key of keys) {
      if (slotNames(slot, key.certificate))
        attempts.push({ key, transport: slot.transport, agreement: slot.agreement });
    }
  }
  if (attempts.length === 0) {
    for (const slot of slots)
      for (const key of keys)
        if (fits(slot, key)) attempts.push({ key, transport: slot.transport, agreement: slot.agreement });
  }
  return attempts;
}

/** The content key by one attempt, and how it came; throws when the key is not ours. */
export function unwrapContentKey(
  attempt: DecryptionAttempt,
  keyBytes: number,
  originators: readonly X509Certificate[] = [],
): { contentKey: Buffer; keyTransport: ContentKeyDelivery } {
  if (attempt.agreement) {
    const { agreement, encryptedKey } = attempt.agreement;
    return {
      contentKey: agreeAndUnwrap(attempt.key.privateKey, agreement, encryptedKey, originators),
      keyTransport: agreement.scheme.name,
    };
  }
  const recipient = attempt.transport!;
  const keyAlgorithm = recipient.child(2, 'keyEncryptionAlgorithm');
  return {
    contentKey: unwrapKey(
      attempt.key.privateKey,
      keyAlgorithm,
      readOctets(recipient.child(3, 'encryptedKey')),
      keyBytes,
    ),
    keyTransport: keyTransportOf(keyAlgorithm),
  };
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
  const slots = slotsOf(recipients);
  if (slots.some((slot) => keys.some((k) => slotNames(slot, k.certificate)))) return null;
  const theirs = slots.map((slot) => {
    if (slot.problem) return `a key agreement recipient pier cannot use (${slot.problem})`;
    try {
      const rid = slot.rid!;
      if (rid.isContext(0)) {
        // KeyTransRecipientInfo's [0] is the identifier; KeyAgreement's [0] starts with it.
        const ski = slot.agreement ? readOctets(rid.child(0, 'subjectKeyIdentifier')) : readOctets(rid);
        return `subject key identifier ${ski.toString('hex')}`;
      }
      return `serial ${serialText(rid.child(1, 'serialNumber').raw)}`;
    } catch {
      return 'an unreadable recipient';
    }
  });
  const ours = keys.map(
    (k) => `${k.certificate.subject.replace(/\n/g, ', ')} (serial ${k.certificate.serialNumber})`,
  );
  return (
    `the message is encrypted for the certificate with ${theirs.join(', ') || 'no key transport or key agreement recipient'}; ` +
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
