/**
 * EC keys in the forms CMS key agreement needs them: the curve's name, the public key as an
 * uncompressed point, the private key as a scalar, and the AlgorithmIdentifier a
 * SubjectPublicKeyInfo gives the key (with its named curve).
 */
import type { KeyObject } from 'node:crypto';
import { Asn1Error, readBer, readOid, universalTag, type Asn1Node } from '../asn1/reader.js';
import { oids } from '../oids.js';

/** The named curve of an EC key, or null for any other key. */
export function ecCurveOf(key: KeyObject): string | null {
  return key.asymmetricKeyType === 'ec' ? (key.asymmetricKeyDetails?.namedCurve ?? null) : null;
}

/** The uncompressed point (SEC 1 §2.3.3) of an EC public key. */
export function publicPoint(key: KeyObject): Buffer {
  const jwk = key.export({ format: 'jwk' });
  return Buffer.concat([
    Buffer.from([4]),
    Buffer.from(jwk.x!, 'base64url'),
    Buffer.from(jwk.y!, 'base64url'),
  ]);
}

/** The private scalar of an EC private key, big-endian. The caller zeroes it after use. */
export function privateScalar(key: KeyObject): Buffer {
  return Buffer.from(key.export({ format: 'jwk' }).d!, 'base64url');
}

/** The DER AlgorithmIdentifier of the key's SubjectPublicKeyInfo: id-ecPublicKey and its curve. */
export function publicKeyAlgorithm(key: KeyObject): Buffer {
  return readBer(key.export({ type: 'spki', format: 'der' })).child(0, 'algorithm').raw;
}

/**
 * The point of an OriginatorPublicKey (RFC 5652 §6.2.2) or SubjectPublicKeyInfo-shaped key:
 * id-ecPublicKey (parameters, if any, are the recipient's curve and not read) and a BIT STRING.
 */
export function readEcPoint(node: Asn1Node): Buffer {
  if (readOid(node.child(0, 'key algorithm').child(0, 'algorithm')) !== oids.ecPublicKey)
    throw new Asn1Error('the originator key is not an EC key');
  const bits = node.child(1, 'public key');
  if (!bits.isUniversal(universalTag.bitString) || bits.content[0] !== 0)
    throw new Asn1Error('unreadable originator public key');
  return bits.content.subarray(1);
}
