/**
 * ECDH ephemeral-static key agreement of the content-encryption key (KeyAgreeRecipientInfo,
 * RFC 5652 §6.2.2 with RFC 5753 §3.1): a fresh key pair on the recipient's curve, the ANSI X9.63
 * KDF over the shared secret and ECC-CMS-SharedInfo, and the content key wrapped under the
 * result with RFC 3394 AES key wrap. node:crypto does the curve arithmetic and the wrap.
 */
import { createCipheriv, createDecipheriv, createECDH, createHash, type X509Certificate } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import {
  aesWrapFor,
  keyAgreementCurves,
  keyAgreementSchemes,
  keyWraps,
  type KeyAgreementScheme,
} from '../algorithms/key-agreement-algorithms.js';
import { Asn1Error, readOctets, readOid, universalTag, type Asn1Node } from '../asn1/reader.js';
import {
  algorithmIdentifier,
  explicit,
  integer,
  octetString,
  raw,
  sequence,
  tlv,
  toBuffer,
  type Der,
} from '../asn1/writer.js';
import { oids } from '../oids.js';
import { hasSubjectKeyIdentifier, identifies, issuerAndSerialNumber } from './certificates.js';

/** RFC 3394's default initial value; RFC 3217's 3DES wrap carries its own IV. */
const aesWrapIv = Buffer.from('a6a6a6a6a6a6a6a6', 'hex');

/** The named curve of an EC key, or null for any other key. */
export function ecCurveOf(key: KeyObject): string | null {
  return key.asymmetricKeyType === 'ec' ? (key.asymmetricKeyDetails?.namedCurve ?? null) : null;
}

/** The uncompressed point (SEC 1 §2.3.3) of an EC public key. */
function publicPoint(key: KeyObject): Buffer {
  const jwk = key.export({ format: 'jwk' });
  return Buffer.concat([
    Buffer.from([4]),
    Buffer.from(jwk.x!, 'base64url'),
    Buffer.from(jwk.y!, 'base64url'),
  ]);
}

/** ANSI X9.63 KDF (SEC 1 §3.6.1): hash(Z ‖ counter ‖ SharedInfo) for counter = 1, 2, … */
function x963Kdf(hash: string, secret: Buffer, sharedInfo: Buffer, bytes: number): Buffer {
  const blocks: Buffer[] = [];
  let length = 0;
  for (let counter = 1; length < bytes; counter++) {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    const block = createHash(hash).update(secret).update(count).update(sharedInfo).digest();
    blocks.push(block);
    length += block.length;
  }
  return Buffer.concat(blocks).subarray(0, bytes);
}

/**
 * ECC-CMS-SharedInfo (RFC 5753 §7.2): the key-wrap AlgorithmIdentifier as the message carries
 * it, the user keying material when present, and the key-encryption key's length in bits.
 */
function sharedInfo(wrapAlgorithm: Buffer, ukm: Buffer | null, kekBytes: number): Buffer {
  const bits = Buffer.alloc(4);
  bits.writeUInt32BE(kekBytes * 8);
  const fields: Der[] = [raw(wrapAlgorithm)];
  if (ukm) fields.push(explicit(0, octetString(ukm)));
  fields.push(explicit(2, octetString(bits)));
  return toBuffer(sequence(...fields));
}

/**
 * KeyAgreeRecipientInfo ([1] in RecipientInfo) for an EC certificate: the content key wrapped
 * under a key agreed between a fresh ephemeral key and the certificate's key.
 */
export function keyAgreeRecipientInfo(certificate: X509Certificate, contentKey: Buffer): Der {
  const curve = ecCurveOf(certificate.publicKey);
  const curveChoice = curve ? keyAgreementCurves[curve] : undefined;
  if (!curveChoice) {
    throw new Error(
      `the encryption certificate's EC curve ${curve ?? '(none)'} is not one pier agrees keys on`,
    );
  }
  const scheme = keyAgreementSchemes[curveChoice.writeScheme]!;
  const wrapOid = aesWrapFor(contentKey.length);
  const wrap = keyWraps[wrapOid]!;
  // AES key wrap parameters are absent (RFC 3565 §2.3.2).
  const wrapAlgorithm = toBuffer(algorithmIdentifier(wrapOid));

  const ephemeral = createECDH(curve!);
  ephemeral.generateKeys();
  const secret = ephemeral.computeSecret(publicPoint(certificate.publicKey));
  const kek = x963Kdf(scheme.kdfHash, secret, sharedInfo(wrapAlgorithm, null, wrap.kekBytes), wrap.kekBytes);
  secret.fill(0);
  const cipher = createCipheriv(wrap.cipher, kek, aesWrapIv);
  const encryptedKey = Buffer.concat([cipher.update(contentKey), cipher.final()]);
  kek.fill(0);

  // The ephemeral key's parameters are absent: the curve is the recipient's (RFC 5753 §3.1.1).
  const originatorKey = tlv(0xa1, [
    algorithmIdentifier(oids.ecPublicKey),
    tlv(0x03, [Buffer.from([0]), ephemeral.getPublicKey()]),
  ]);
  return tlv(0xa1, [
    integer(3),
    explicit(0, originatorKey),
    algorithmIdentifier(curveChoice.writeScheme, raw(wrapAlgorithm)),
    sequence(sequence(issuerAndSerialNumber(certificate), octetString(encryptedKey))),
  ]);
}

/** A KeyAgreeRecipientInfo as read: the parts every RecipientEncryptedKey in it shares. */
export interface KeyAgreement {
  scheme: KeyAgreementScheme;
  /** The originator's ephemeral public key (an EC point). */
  originatorPoint: Buffer;
  ukm: Buffer | null;
  /** The key-wrap AlgorithmIdentifier exactly as the message carries it (it goes into the KDF). */
  wrapAlgorithm: Buffer;
  wrap: { cipher: string; kekBytes: number };
  /** One per recipient: the recipient identifier and the wrapped content key. */
  recipients: { rid: Asn1Node; encryptedKey: Buffer }[];
}

/** Reads a [1] KeyAgreeRecipientInfo; throws Asn1Error on anything pier cannot agree a key for. */
export function readKeyAgreement(node: Asn1Node): KeyAgreement {
  let i = 1; // after the version
  const originator = node.child(i++, 'originator');
  if (!originator.isContext(0)) throw new Asn1Error('key agreement without an originator');
  const originatorKey = originator.child(0, 'originator key');
  // issuerAndSerialNumber or subjectKeyIdentifier: a static originator key (1-pass ECMQV or
  // static-static ECDH), which RFC 5753 ephemeral-static does not use.
  if (!originatorKey.isContext(1)) throw new Asn1Error('key agreement with a static originator key');
  if (readOid(originatorKey.child(0, 'originator key algorithm').child(0, 'algorithm')) !== oids.ecPublicKey)
    throw new Asn1Error('the originator key is not an EC key');
  const bits = originatorKey.child(1, 'originator public key');
  if (!bits.isUniversal(universalTag.bitString) || bits.content[0] !== 0)
    throw new Asn1Error('unreadable originator public key');
  let ukm: Buffer | null = null;
  if (node.children[i]?.isContext(1)) ukm = readOctets(node.child(i++, 'ukm').child(0, 'ukm'));
  const algorithm = node.child(i++, 'keyEncryptionAlgorithm');
  const schemeOid = readOid(algorithm.child(0, 'key agreement algorithm'));
  const scheme = keyAgreementSchemes[schemeOid];
  if (!scheme) throw new Asn1Error(`unsupported key agreement ${schemeOid}`);
  const wrapNode = algorithm.child(1, 'key wrap algorithm');
  const wrapOid = readOid(wrapNode.child(0, 'key wrap algorithm'));
  const wrap = keyWraps[wrapOid];
  if (!wrap) throw new Asn1Error(`unsupported key wrap ${wrapOid}`);
  const recipients = node.child(i, 'recipientEncryptedKeys').children.map((rek) => ({
    rid: rek.child(0, 'rid'),
    encryptedKey: readOctets(rek.child(1, 'encryptedKey')),
  }));
  return {
    scheme,
    originatorPoint: bits.content.subarray(1),
    ukm,
    wrapAlgorithm: wrapNode.raw,
    wrap,
    recipients,
  };
}

/**
 * Whether a KeyAgreeRecipientIdentifier names the certificate: an IssuerAndSerialNumber, or an
 * [0] RecipientKeyIdentifier whose first field is the SubjectKeyIdentifier.
 */
export function agreementNames(rid: Asn1Node, certificate: X509Certificate): boolean {
  if (rid.isContext(0))
    return hasSubjectKeyIdentifier(certificate, readOctets(rid.child(0, 'subjectKeyIdentifier')));
  return identifies(rid, certificate);
}

/** The content-encryption key, unwrapped with the key agreed with our EC private key. */
export function agreeAndUnwrap(privateKey: KeyObject, agreement: KeyAgreement, encryptedKey: Buffer): Buffer {
  const curve = ecCurveOf(privateKey);
  if (!curve || !keyAgreementCurves[curve]) throw new Error('key agreement needs an EC private key');
  const d = Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url');
  const ecdh = createECDH(curve);
  ecdh.setPrivateKey(d);
  d.fill(0);
  // Throws when the point is not on our curve: the message was not made for this key.
  const secret = ecdh.computeSecret(agreement.originatorPoint);
  const { cipher, kekBytes } = agreement.wrap;
  const kek = x963Kdf(
    agreement.scheme.kdfHash,
    secret,
    sharedInfo(agreement.wrapAlgorithm, agreement.ukm, kekBytes),
    kekBytes,
  );
  secret.fill(0);
  // A wrong key fails the wrap's integrity check and throws.
  const decipher = createDecipheriv(cipher, kek, cipher === 'des3-wrap' ? null : aesWrapIv);
  const key = Buffer.concat([decipher.update(encryptedKey), decipher.final()]);
  kek.fill(0);
  return key;
}
