/**
 * 1-pass ECMQV in a KeyAgreeRecipientInfo (RFC 5753 §3.2), in the form BouncyCastle writes and
 * reads, since the AS2 products that send ECMQV (mendelson's, for one) are built on it:
 *
 * - originator: the sender's static public key written out (originatorKey). RFC 5753 asks for
 *   issuerAndSerialNumber or subjectKeyIdentifier, which BouncyCastle cannot read; pier writes
 *   the key and reads all three, looking a named certificate up among the partner's.
 * - ukm: MQVuserKeyingMaterial, the sender's ephemeral public key and an optional addedukm.
 * - KDF: ANSI X9.63 with BouncyCastle's SharedInfo, the addedukm alone (nothing without one);
 *   RFC 5753 §7.2 asks for ECC-CMS-SharedInfo. pier writes BouncyCastle's form and reads both.
 *
 * The recipient has no ephemeral key: its static key serves in both of its roles.
 */
import { createECDH, type KeyObject, type X509Certificate } from 'node:crypto';
import { Asn1Error, readBer, readOctets, type Asn1Node } from '../asn1/reader.js';
import { explicit, octetString, raw, sequence, tlv, toBuffer, type Der } from '../asn1/writer.js';
import { hasSubjectKeyIdentifier, identifies } from './certificates.js';
import { ecCurveOf, privateScalar, publicKeyAlgorithm, publicPoint, readEcPoint } from './ec-keys.js';
import { isMqvCurve, mqvSharedSecret, type MqvCurve } from './ecmqv.js';
import { eccCmsSharedInfo, unwrapContentKey, x963Kdf, type KdfHash } from './x963-kdf.js';

/** pier as the sender of 1-pass ECMQV: its static EC key, with the certificate that holds it. */
export interface MqvOriginator {
  certificate: X509Certificate;
  privateKey: KeyObject;
}

/** What a KeyAgreeRecipientInfo says of its 1-pass ECMQV originator. */
export interface MqvAgreement {
  /** The originator's static key when the message carries it (originatorKey), else null. */
  staticPoint: Buffer | null;
  /** issuerAndSerialNumber or [0] subjectKeyIdentifier naming the originator's certificate, else null. */
  originatorId: Asn1Node | null;
  /** From MQVuserKeyingMaterial. */
  ephemeralPoint: Buffer;
  addedUkm: Buffer | null;
}

const curveNames: Record<MqvCurve, string> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };

function mqvCurveOf(key: KeyObject, whose: string): MqvCurve {
  const curve = ecCurveOf(key);
  if (!isMqvCurve(curve))
    throw new Error(
      `1-pass ECMQV is not available on ${whose} curve ${curve ?? '(not EC)'}: P-256, P-384 and P-521 only`,
    );
  return curve;
}

/** Reads the originator (the choice inside [0]) and the ukm of an ECMQV KeyAgreeRecipientInfo. */
export function readMqvAgreement(originator: Asn1Node, ukm: Buffer | null): MqvAgreement {
  if (!ukm) throw new Asn1Error('1-pass ECMQV without user keying material (the ephemeral key)');
  const material = readBer(ukm);
  const added = material.children[1];
  if (added && !added.isContext(0)) throw new Asn1Error('unreadable MQVuserKeyingMaterial');
  const agreement: MqvAgreement = {
    staticPoint: null,
    originatorId: null,
    ephemeralPoint: readEcPoint(material.child(0, 'ephemeralPublicKey')),
    addedUkm: added ? readOctets(added.child(0, 'addedukm')) : null,
  };
  if (originator.isContext(1)) agreement.staticPoint = readEcPoint(originator);
  else if (originator.isContext(0) || originator.isUniversal(16)) agreement.originatorId = originator;
  else throw new Asn1Error('unreadable originator');
  return agreement;
}

/** The originator's static public key: written out, or from the partner's certificate it names. */
function originatorStatic(agreement: MqvAgreement, originators: readonly X509Certificate[]): Buffer {
  if (agreement.staticPoint) return agreement.staticPoint;
  const id = agreement.originatorId!;
  const ski = id.isContext(0) ? readOctets(id) : null;
  const found = originators.find((c) => (ski ? hasSubjectKeyIdentifier(c, ski) : identifies(id, c)));
  if (!found) {
    const named = ski
      ? `subject key identifier ${ski.toString('hex')}`
      : 'the issuer and serial number given';
    throw new Error(
      `the ECMQV originator's certificate (${named}) is not one of the partner's certificates pier holds`,
    );
  }
  return publicPoint(found.publicKey);
}

/** The content key of a 1-pass ECMQV recipient, unwrapped with our EC private key. */
export function mqvUnwrap(
  privateKey: KeyObject,
  agreement: MqvAgreement,
  kdfHash: KdfHash,
  wrap: { cipher: string; kekBytes: number; algorithm: Buffer },
  encryptedKey: Buffer,
  originators: readonly X509Certificate[],
): Buffer {
  const curve = mqvCurveOf(privateKey, 'our');
  const staticPoint = originatorStatic(agreement, originators);
  const d = privateScalar(privateKey);
  let secret: Buffer;
  try {
    // 1-pass: our static key is also our ephemeral key.
    secret = mqvSharedSecret(
      curve,
      { staticKey: d, ephemeralKey: d, ephemeralPoint: publicPoint(privateKey) },
      { staticPoint, ephemeralPoint: agreement.ephemeralPoint },
    );
  } finally {
    d.fill(0);
  }
  // BouncyCastle's SharedInfo first (what every ECMQV sender seen so far writes), then RFC 5753's.
  const sharedInfos = [
    agreement.addedUkm ?? Buffer.alloc(0),
    eccCmsSharedInfo(wrap.algorithm, agreement.addedUkm, wrap.kekBytes),
  ];
  let failure: unknown;
  try {
    for (const sharedInfo of sharedInfos) {
      try {
        return unwrapContentKey(
          wrap.cipher,
          x963Kdf(kdfHash, secret, sharedInfo, wrap.kekBytes),
          encryptedKey,
        );
      } catch (error) {
        failure = error;
      }
    }
  } finally {
    secret.fill(0);
  }
  throw failure;
}

/** The parts of a KeyAgreeRecipientInfo that 1-pass ECMQV fills, and the key-encryption key. */
export interface MqvParts {
  /** OriginatorIdentifierOrKey's originatorKey [1]: our static public key. */
  originator: Der;
  /** [1] ukm: MQVuserKeyingMaterial with our ephemeral public key. */
  ukm: Der;
  kek: Buffer;
}

/**
 * Agrees a key-encryption key with the recipient's certificate, from our static key and a fresh
 * ephemeral key (or `ephemeralKey`, which lets a test reproduce a recorded message).
 */
export function mqvAgree(
  certificate: X509Certificate,
  originator: MqvOriginator,
  kdfHash: KdfHash,
  kekBytes: number,
  ephemeralKey?: Buffer,
): MqvParts {
  const curve = mqvCurveOf(certificate.publicKey, "the encryption certificate's");
  if (ecCurveOf(originator.privateKey) !== curve)
    throw new Error(
      `1-pass ECMQV needs the organization's static key on ${curveNames[curve]}, the encryption certificate's curve`,
    );
  const staticPoint = publicPoint(originator.certificate.publicKey);
  if (!staticPoint.equals(publicPoint(originator.privateKey)))
    throw new Error("the organization's ECMQV key is not the key of its certificate");
  const ephemeral = createECDH(curve);
  if (ephemeralKey) ephemeral.setPrivateKey(ephemeralKey);
  else ephemeral.generateKeys();
  const ephemeralPoint = ephemeral.getPublicKey();
  const d = privateScalar(originator.privateKey);
  const e = ephemeral.getPrivateKey();
  let secret: Buffer;
  try {
    // 1-pass: the recipient's static key is also its ephemeral key.
    const recipient = publicPoint(certificate.publicKey);
    secret = mqvSharedSecret(
      curve,
      { staticKey: d, ephemeralKey: e, ephemeralPoint },
      { staticPoint: recipient, ephemeralPoint: recipient },
    );
  } finally {
    d.fill(0);
    e.fill(0);
  }
  // BouncyCastle's SharedInfo with no addedukm: none at all (see the head of this file).
  const kek = x963Kdf(kdfHash, secret, Buffer.alloc(0), kekBytes);
  secret.fill(0);
  // Parameters name the curve, as BouncyCastle writes both keys.
  const algorithm = raw(publicKeyAlgorithm(originator.certificate.publicKey));
  const bitString = (point: Buffer) => tlv(0x03, [Buffer.from([0]), point]);
  return {
    originator: tlv(0xa1, [algorithm, bitString(staticPoint)]),
    ukm: explicit(1, octetString(toBuffer(sequence(sequence(algorithm, bitString(ephemeralPoint)))))),
    kek,
  };
}
