/**
 * Signatures for SignerInfo: RSA PKCS#1 v1.5 (RFC 3370 §3.2), RSASSA-PSS (RFC 4056) and ECDSA
 * (RFC 5753 §2.1, RFC 5758; SHA-3 per RFC 8702's siblings) with their AlgorithmIdentifiers,
 * computed by node:crypto.
 */
import {
  constants,
  createSign,
  createVerify,
  privateEncrypt,
  publicDecrypt,
  type KeyObject,
  type Sign,
} from 'node:crypto';
import type { SignatureScheme } from '../algorithms/encryption-algorithms.js';
import {
  micAlgorithms,
  micAlgorithmForDigestOid,
  micAlgorithmForEcdsaSignatureOid,
  micAlgorithmForPkcs1SignatureOid,
  type MicAlgorithm,
} from '../algorithms/mic-algorithms.js';
import { oids } from '../oids.js';
import { pssSaltLength } from './pss-salt.js';
import { Asn1Error, readBer, readOctets, readOid, readSmallInteger, type Asn1Node } from '../asn1/reader.js';
import {
  algorithmIdentifier,
  explicit,
  integer,
  nullValue,
  octetString,
  sequence,
  toBuffer,
  type Der,
} from '../asn1/writer.js';
import { withoutStackTraces } from '../quiet-key-checks.js';

export interface SignatureAlgorithm {
  scheme: SignatureScheme;
  /** RSASSA-PSS parameters; null for PKCS#1 v1.5. */
  pss: {
    hash: MicAlgorithm;
    mgfHash: MicAlgorithm;
    saltLength: number;
    /**
     * The parameters were absent (or NULL): RFC 4055 then means the SHA-1 defaults, but
     * pyas2lib writes them so while signing with the SignerInfo's digest and the maximum salt
     * length (see `lenientPss`).
     */
    parametersAbsent: boolean;
  } | null;
}

/**
 * PKCS#1 v1.5 is written as rsaEncryption with NULL, as OpenSSL and BouncyCastle write it
 * (RFC 3370 allows this or shaNNNWithRSAEncryption; readers accept both). PSS uses the digest
 * for MGF1 too and a salt as long as the digest (RFC 4056 §3 recommendations).
 */
export function signatureAlgorithmIdentifier(scheme: SignatureScheme, digest: MicAlgorithm): Der {
  if (scheme === 'rsa-pkcs1') return algorithmIdentifier(oids.rsaEncryption, nullValue);
  if (scheme === 'ecdsa') {
    const oid = micAlgorithms[digest].ecdsaSignatureOid;
    if (!oid) throw new Asn1Error(`ECDSA with ${digest} has no algorithm identifier`);
    // RFC 5758 §3.2: the parameters are absent.
    return algorithmIdentifier(oid);
  }
  return algorithmIdentifier(oids.rsassaPss, pssParameters(digest));
}

function pssParameters(digest: MicAlgorithm): Der {
  if (digest === 'sha-1') return sequence();
  const hashId = algorithmIdentifier(micAlgorithms[digest].digestOid, nullValue);
  return sequence(
    explicit(0, hashId),
    explicit(1, algorithmIdentifier(oids.mgf1, hashId)),
    explicit(2, integer(micAlgorithms[digest].digestBytes)),
  );
}

export function readSignatureAlgorithm(identifier: Asn1Node): SignatureAlgorithm {
  const id = readOid(identifier.child(0, 'signatureAlgorithm'));
  if (id === oids.rsaEncryption || micAlgorithmForPkcs1SignatureOid(id))
    return { scheme: 'rsa-pkcs1', pss: null };
  // Some signers write the key's algorithm (id-ecPublicKey) instead of ecdsa-with-…; the
  // SignerInfo's digestAlgorithm names the hash either way.
  if (id === oids.ecPublicKey || micAlgorithmForEcdsaSignatureOid(id)) return { scheme: 'ecdsa', pss: null };
  if (id !== oids.rsassaPss) throw new Asn1Error(`unsupported signature algorithm ${id}`);
  let hash: MicAlgorithm = 'sha-1';
  let mgfHash: MicAlgorithm = 'sha-1';
  let saltLength = 20;
  const parameters = identifier.children[1];
  const parametersAbsent = parameters === undefined || parameters.isUniversal(5);
  for (const field of parametersAbsent ? [] : parameters.children) {
    if (field.isContext(0)) {
      const found = micAlgorithmForDigestOid(readOid(field.child(0, 'hashAlgorithm').child(0, 'algorithm')));
      if (!found) throw new Asn1Error('unsupported PSS hash');
      hash = found;
    } else if (field.isContext(1)) {
      const mgf = field.child(0, 'maskGenAlgorithm');
      if (readOid(mgf.child(0, 'algorithm')) !== oids.mgf1)
        throw new Asn1Error('unsupported PSS mask generation');
      const found = micAlgorithmForDigestOid(readOid(mgf.child(1, 'MGF1 hash').child(0, 'algorithm')));
      if (!found) throw new Asn1Error('unsupported MGF1 hash');
      mgfHash = found;
    } else if (field.isContext(2)) {
      saltLength = readSmallInteger(field.child(0, 'saltLength'));
    } else if (field.isContext(3)) {
      if (readSmallInteger(field.child(0, 'trailerField')) !== 1)
        throw new Asn1Error('unsupported PSS trailer');
    }
  }
  return { scheme: 'rsa-pss', pss: { hash, mgfHash, saltLength, parametersAbsent } };
}

/**
 * The liberal reading of RSASSA-PSS without parameters: the SignerInfo's digest for the
 * message and MGF1, and the salt length the signature itself carries (`pssSaltLength`):
 * pyas2lib writes the parameters absent and signs with the maximum salt length. Null when
 * there is no other reading to try: parameters were written, the signature is no PSS encoding
 * under that digest for this key, or the reading is RFC 4055's defaults (SHA-1, salt 20),
 * already tried.
 */
export function lenientPss(
  algorithm: SignatureAlgorithm,
  digest: MicAlgorithm,
  signature: Buffer,
  key: KeyObject,
): SignatureAlgorithm | null {
  if (!algorithm.pss?.parametersAbsent) return null;
  const saltLength = pssSaltLength(signature, key, digest);
  if (saltLength === null || (digest === 'sha-1' && saltLength === 20)) return null;
  return {
    scheme: 'rsa-pss',
    pss: { hash: digest, mgfHash: digest, saltLength, parametersAbsent: true },
  };
}

/** The scheme a key signs with: ECDSA for an EC key, else the one asked for (PKCS#1 v1.5 by default). */
export function signatureSchemeFor(key: KeyObject, requested: SignatureScheme | undefined): SignatureScheme {
  if (key.asymmetricKeyType === 'ec') return 'ecdsa';
  return requested === 'ecdsa' || requested === undefined ? 'rsa-pkcs1' : requested;
}

/** The signature's scheme fits the key: ECDSA for EC keys, an RSA scheme for RSA keys. */
function schemeFitsKey(scheme: SignatureScheme, key: KeyObject): boolean {
  return (scheme === 'ecdsa') === (key.asymmetricKeyType === 'ec');
}

export function signData(
  data: readonly Buffer[],
  digest: MicAlgorithm,
  scheme: SignatureScheme,
  key: KeyObject,
): Buffer {
  const signer = createSign(micAlgorithms[digest].nodeHash);
  for (const chunk of data) signer.update(chunk);
  return finishSignature(signer, digest, scheme, key);
}

/** The signature of what was fed to `signer` (made with createSign for `digest`). */
export function finishSignature(
  signer: Sign,
  digest: MicAlgorithm,
  scheme: SignatureScheme,
  key: KeyObject,
): Buffer {
  // ECDSA signatures are DER Ecdsa-Sig-Value, node:crypto's default encoding.
  if (scheme !== 'rsa-pss') return signer.sign(key);
  return withoutStackTraces(() =>
    signer.sign({
      key,
      padding: constants.RSA_PKCS1_PSS_PADDING,
      saltLength: micAlgorithms[digest].digestBytes,
    }),
  );
}

function digestInfo(digest: MicAlgorithm, value: Buffer): Buffer {
  return toBuffer(
    sequence(algorithmIdentifier(micAlgorithms[digest].digestOid, nullValue), octetString(value)),
  );
}

/**
 * A PKCS#1 v1.5 signature over a digest already computed (signatures without signed attributes
 * cover the whole content, whose digest the MIC computation already has: no second pass).
 */
export function signDigestPkcs1(digest: MicAlgorithm, value: Buffer, key: KeyObject): Buffer {
  return withoutStackTraces(() =>
    privateEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, digestInfo(digest, value)),
  );
}

export function verifyData(
  data: readonly Buffer[],
  digest: MicAlgorithm,
  algorithm: SignatureAlgorithm,
  signature: Buffer,
  key: KeyObject,
): boolean {
  if (!schemeFitsKey(algorithm.scheme, key)) return false;
  const verifier = createVerify(micAlgorithms[digest].nodeHash);
  for (const chunk of data) verifier.update(chunk);
  if (!algorithm.pss) return verifier.verify(key, signature);
  // node:crypto hashes with one algorithm for the message and MGF1.
  const { pss } = algorithm;
  if (pss.hash !== digest || pss.mgfHash !== digest) return false;
  return withoutStackTraces(() =>
    verifier.verify({ key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: pss.saltLength }, signature),
  );
}

/** Checks a PKCS#1 v1.5 signature against a digest already computed. */
export function verifyDigestPkcs1(
  digest: MicAlgorithm,
  value: Buffer,
  signature: Buffer,
  key: KeyObject,
): boolean {
  let decoded: Buffer;
  try {
    decoded = withoutStackTraces(() =>
      publicDecrypt({ key, padding: constants.RSA_PKCS1_PADDING }, signature),
    );
  } catch {
    return false;
  }
  try {
    const info = readBer(decoded);
    const algorithm = micAlgorithmForDigestOid(
      readOid(info.child(0, 'digestAlgorithm').child(0, 'algorithm')),
    );
    return algorithm === digest && readOctets(info.child(1, 'digest')).equals(value);
  } catch {
    return false;
  }
}
