/**
 * The ECMQV primitive (SEC 1 v2 §3.4, ANSI X9.63 §5.4.2) as 1-pass ECMQV in CMS uses it
 * (RFC 5753 §3.2): node:crypto has no MQV, so @noble/curves does the point arithmetic and this
 * file only combines its results the way the standard says.
 */
import { p256, p384, p521 } from '@noble/curves/nist.js';

/** The curves pier agrees ECMQV keys on, by node:crypto's name. */
const curves = { prime256v1: p256, secp384r1: p384, secp521r1: p521 } as const;

export type MqvCurve = keyof typeof curves;

export function isMqvCurve(curve: string | null): curve is MqvCurve {
  return curve !== null && Object.hasOwn(curves, curve);
}

/** One party's side of the agreement: its two private keys and its ephemeral public key. */
export interface MqvOwnKeys {
  /** The static private key, big-endian. */
  staticKey: Uint8Array;
  /** The ephemeral private key, big-endian (1-pass ECMQV's recipient uses its static key again). */
  ephemeralKey: Uint8Array;
  /** The ephemeral public key, an uncompressed SEC 1 point. */
  ephemeralPoint: Uint8Array;
}

/** The other party's two public keys, uncompressed SEC 1 points. */
export interface MqvPeerKeys {
  staticPoint: Uint8Array;
  ephemeralPoint: Uint8Array;
}

const bigintOf = (bytes: Uint8Array) => BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);

/**
 * The associate value avf(Q) (SEC 1 §3.4 step 3): the low ceil(log2(n) / 2) bits of Q's
 * x-coordinate, with the bit above them set.
 */
function associate(x: bigint, halfBits: bigint): bigint {
  const top = 1n << halfBits;
  return (x % top) | top;
}

/**
 * The shared secret Z: the x-coordinate of h·s·(Q_e' + avf(Q_e')·Q_s'), where
 * s = d_e + avf(Q_e)·d_s mod n, as many bytes as the field (SEC 1 §2.3.5). Throws when a point
 * is not on the curve or the result is the point at infinity: then no key is agreed.
 */
export function mqvSharedSecret(curve: MqvCurve, own: MqvOwnKeys, peer: MqvPeerKeys): Buffer {
  const { Point } = curves[curve];
  const { n, h } = Point.CURVE();
  // ceil(log2(n) / 2), as SEC 1 writes it: half the bit length of n, rounded up.
  const halfBits = BigInt(Math.ceil(n.toString(2).length / 2));
  // fromBytes refuses a point off the curve, so a forged key cannot leak our private key.
  const ownEphemeral = Point.fromBytes(own.ephemeralPoint);
  const peerStatic = Point.fromBytes(peer.staticPoint);
  const peerEphemeral = Point.fromBytes(peer.ephemeralPoint);
  const s = (bigintOf(own.ephemeralKey) + associate(ownEphemeral.x, halfBits) * bigintOf(own.staticKey)) % n;
  const hs = (h * s) % n;
  if (hs === 0n) throw new Error('ECMQV: the implicit signature is zero');
  const peerSum = peerEphemeral.add(peerStatic.multiply(associate(peerEphemeral.x, halfBits)));
  if (peerSum.is0()) throw new Error('ECMQV: the point at infinity');
  const shared = peerSum.multiply(hs);
  if (shared.is0()) throw new Error('ECMQV: the point at infinity');
  return Buffer.from(shared.x.toString(16).padStart(Point.Fp.BYTES * 2, '0'), 'hex');
}
