/**
 * EC key agreement of the content-encryption key (KeyAgreeRecipientInfo, RFC 5652 §6.2.2):
 * ECDH ephemeral-static (RFC 5753 §3.1: a fresh key pair on the recipient's curve) and 1-pass
 * ECMQV (RFC 5753 §3.2, key-agreement-mqv.ts), each followed by the ANSI X9.63 KDF and RFC 3394
 * AES key wrap (x963-kdf.ts). node:crypto does ECDH; @noble/curves does ECMQV's arithmetic.
 */
import { createECDH, type KeyObject, type X509Certificate } from 'node:crypto';
import {
  aesWrapFor,
  keyAgreementCurves,
  keyAgreementSchemes,
  keyWraps,
  type KeyAgreementScheme,
} from '../algorithms/key-agreement-algorithms.js';
import { Asn1Error, readOctets, readOid, type Asn1Node } from '../asn1/reader.js';
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
import { ecCurveOf, privateScalar, publicPoint, readEcPoint } from './ec-keys.js';
import {
  mqvAgree,
  mqvUnwrap,
  readMqvAgreement,
  type MqvAgreement,
  type MqvOriginator,
} from './key-agreement-mqv.js';
import { eccCmsSharedInfo, unwrapContentKey, wrapContentKey, x963Kdf } from './x963-kdf.js';

export { ecCurveOf } from './ec-keys.js';
export type { MqvOriginator } from './key-agreement-mqv.js';

/**
 * KeyAgreeRecipientInfo ([1] in RecipientInfo) for an EC certificate: the content key wrapped
 * under a key agreed between a fresh ephemeral key and the certificate's key (ECDH), or, with
 * `mqv`, between the ephemeral key together with our static key and the certificate's (1-pass
 * ECMQV). `mqv.ephemeralKey` fixes the ephemeral key, for tests that reproduce a recorded message.
 */
export function keyAgreeRecipientInfo(
  certificate: X509Certificate,
  contentKey: Buffer,
  mqv?: { originator: MqvOriginator; ephemeralKey?: Buffer },
): Der {
  const curve = ecCurveOf(certificate.publicKey);
  const curveChoice = curve ? keyAgreementCurves[curve] : undefined;
  if (!curveChoice) {
    throw new Error(
      `the encryption certificate's EC curve ${curve ?? '(none)'} is not one pier agrees keys on`,
    );
  }
  const schemeOid = mqv ? curveChoice.mqvScheme : curveChoice.writeScheme;
  if (!schemeOid)
    throw new Error(`1-pass ECMQV is not available on the encryption certificate's curve ${curve}`);
  const scheme = keyAgreementSchemes[schemeOid]!;
  const wrapOid = aesWrapFor(contentKey.length);
  const wrap = keyWraps[wrapOid]!;
  // AES key wrap parameters are absent (RFC 3565 §2.3.2).
  const wrapAlgorithm = toBuffer(algorithmIdentifier(wrapOid));

  let originator: Der;
  let ukm: Der | null = null;
  let kek: Buffer;
  if (mqv) {
    const parts = mqvAgree(certificate, mqv.originator, scheme.kdfHash, wrap.kekBytes, mqv.ephemeralKey);
    ({ originator, ukm, kek } = parts);
  } else {
    const ephemeral = createECDH(curve!);
    ephemeral.generateKeys();
    const secret = ephemeral.computeSecret(publicPoint(certificate.publicKey));
    kek = x963Kdf(
      scheme.kdfHash,
      secret,
      eccCmsSharedInfo(wrapAlgorithm, null, wrap.kekBytes),
      wrap.kekBytes,
    );
    secret.fill(0);
    // The ephemeral key's parameters are absent: the curve is the recipient's (RFC 5753 §3.1.1).
    originator = tlv(0xa1, [
      algorithmIdentifier(oids.ecPublicKey),
      tlv(0x03, [Buffer.from([0]), ephemeral.getPublicKey()]),
    ]);
  }
  const encryptedKey = wrapContentKey(wrap.cipher, kek, contentKey);
  return tlv(0xa1, [
    integer(3),
    explicit(0, originator),
    ...(ukm ? [ukm] : []),
    algorithmIdentifier(schemeOid, raw(wrapAlgorithm)),
    sequence(sequence(issuerAndSerialNumber(certificate), octetString(encryptedKey))),
  ]);
}

/** A KeyAgreeRecipientInfo as read: the parts every RecipientEncryptedKey in it shares. */
export interface KeyAgreement {
  scheme: KeyAgreementScheme;
  /** ECDH: the originator's ephemeral public key (an EC point); null for ECMQV. */
  originatorPoint: Buffer | null;
  /** 1-pass ECMQV: the originator's keys as the message gives them; null for ECDH. */
  mqv: MqvAgreement | null;
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
  const originatorField = node.child(i++, 'originator');
  if (!originatorField.isContext(0)) throw new Asn1Error('key agreement without an originator');
  const originator = originatorField.child(0, 'originator key');
  let ukm: Buffer | null = null;
  if (node.children[i]?.isContext(1)) ukm = readOctets(node.child(i++, 'ukm').child(0, 'ukm'));
  const algorithm = node.child(i++, 'keyEncryptionAlgorithm');
  const schemeOid = readOid(algorithm.child(0, 'key agreement algorithm'));
  const scheme = keyAgreementSchemes[schemeOid];
  if (!scheme) throw new Asn1Error(`unsupported key agreement ${schemeOid}`);
  let originatorPoint: Buffer | null = null;
  let mqv: MqvAgreement | null = null;
  if (scheme.kind === 'ecmqv') mqv = readMqvAgreement(originator, ukm);
  else {
    // issuerAndSerialNumber or subjectKeyIdentifier with ECDH: static-static ECDH, which
    // RFC 5753 does not define for CMS and no partner has sent.
    if (!originator.isContext(1)) throw new Asn1Error('key agreement with a static originator key');
    originatorPoint = readEcPoint(originator);
  }
  const wrapNode = algorithm.child(1, 'key wrap algorithm');
  const wrapOid = readOid(wrapNode.child(0, 'key wrap algorithm'));
  const wrap = keyWraps[wrapOid];
  if (!wrap) throw new Asn1Error(`unsupported key wrap ${wrapOid}`);
  const recipients = node.child(i, 'recipientEncryptedKeys').children.map((rek) => ({
    rid: rek.child(0, 'rid'),
    encryptedKey: readOctets(rek.child(1, 'encryptedKey')),
  }));
  return { scheme, originatorPoint, mqv, ukm, wrapAlgorithm: wrapNode.raw, wrap, recipients };
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

/**
 * The content-encryption key, unwrapped with the key agreed with our EC private key.
 * `originators`: the partner's certificates, for an ECMQV message that names its originator's
 * certificate instead of carrying the key.
 */
export function agreeAndUnwrap(
  privateKey: KeyObject,
  agreement: KeyAgreement,
  encryptedKey: Buffer,
  originators: readonly X509Certificate[] = [],
): Buffer {
  const curve = ecCurveOf(privateKey);
  if (!curve || !keyAgreementCurves[curve]) throw new Error('key agreement needs an EC private key');
  const { cipher, kekBytes } = agreement.wrap;
  if (agreement.mqv) {
    const wrap = { cipher, kekBytes, algorithm: agreement.wrapAlgorithm };
    return mqvUnwrap(privateKey, agreement.mqv, agreement.scheme.kdfHash, wrap, encryptedKey, originators);
  }
  const d = privateScalar(privateKey);
  const ecdh = createECDH(curve);
  ecdh.setPrivateKey(d);
  d.fill(0);
  // Throws when the point is not on our curve: the message was not made for this key.
  const secret = ecdh.computeSecret(agreement.originatorPoint!);
  const kek = x963Kdf(
    agreement.scheme.kdfHash,
    secret,
    eccCmsSharedInfo(agreement.wrapAlgorithm, agreement.ukm, kekBytes),
    kekBytes,
  );
  secret.fill(0);
  return unwrapContentKey(cipher, kek, encryptedKey);
}
