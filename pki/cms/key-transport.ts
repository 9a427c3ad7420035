/**
 * RSA key transport of the content-encryption key (KeyTransRecipientInfo, RFC 5652 §6.2.1):
 * PKCS#1 v1.5 (RFC 3370 §4.2.1) and RSAES-OAEP (RFC 3560), all through node:crypto.
 */
import { constants, privateDecrypt, publicEncrypt, type KeyObject, type X509Certificate } from 'node:crypto';
import { keyTransportAlgorithms, type KeyTransport } from '../algorithms/encryption-algorithms.js';
import { micAlgorithms, micAlgorithmForDigestOid, type MicAlgorithm } from '../algorithms/mic-algorithms.js';
import { oids } from '../oids.js';
import { Asn1Error, readOid, type Asn1Node } from '../asn1/reader.js';
import { algorithmIdentifier, explicit, nullValue, sequence, type Der } from '../asn1/writer.js';
import { decryptPkcs1v15KeyImplicit } from './rsa-pkcs1.js';
import { withoutStackTraces } from '../quiet-key-checks.js';

export interface WrappedKey {
  algorithm: Der;
  encryptedKey: Buffer;
}

export function wrapKey(certificate: X509Certificate, key: Buffer, transport: KeyTransport): WrappedKey {
  const publicKey = certificate.publicKey;
  if (publicKey.asymmetricKeyType !== 'rsa') throw new Error('the encryption certificate has no RSA key');
  const oaepHash = keyTransportAlgorithms[transport].oaepHash;
  if (oaepHash === null) {
    return {
      algorithm: algorithmIdentifier(oids.rsaEncryption, nullValue),
      encryptedKey: withoutStackTraces(() =>
        publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_PADDING }, key),
      ),
    };
  }
  return {
    algorithm: algorithmIdentifier(oids.rsaesOaep, oaepParameters(oaepHash)),
    encryptedKey: withoutStackTraces(() =>
      publicEncrypt(
        {
          key: publicKey,
          padding: constants.RSA_PKCS1_OAEP_PADDING,
          oaepHash: micAlgorithms[oaepHash].nodeHash,
        },
        key,
      ),
    ),
  };
}

/** RSAES-OAEP-params; SHA-1 everywhere is the default and is written as an empty SEQUENCE. */
function oaepParameters(hash: MicAlgorithm): Der {
  if (hash === 'sha-1') return sequence();
  const hashId = algorithmIdentifier(micAlgorithms[hash].digestOid);
  return sequence(explicit(0, hashId), explicit(1, algorithmIdentifier(oids.mgf1, hashId)));
}

interface OaepParameters {
  hash: MicAlgorithm;
  mgfHash: MicAlgorithm;
}

function readOaepParameters(params: Asn1Node | undefined): OaepParameters {
  let hash: MicAlgorithm = 'sha-1';
  let mgfHash: MicAlgorithm = 'sha-1';
  for (const field of params?.children ?? []) {
    if (field.isContext(0)) {
      const found = micAlgorithmForDigestOid(readOid(field.child(0, 'hashFunc').child(0, 'algorithm')));
      if (!found) throw new Asn1Error('unsupported OAEP hash');
      hash = found;
    } else if (field.isContext(1)) {
      const mgf = field.child(0, 'maskGenFunc');
      if (readOid(mgf.child(0, 'algorithm')) !== oids.mgf1)
        throw new Asn1Error('unsupported OAEP mask generation');
      const found = micAlgorithmForDigestOid(readOid(mgf.child(1, 'mgf1 hash').child(0, 'algorithm')));
      if (!found) throw new Asn1Error('unsupported MGF1 hash');
      mgfHash = found;
    } else if (field.isContext(2)) {
      // pSourceFunc: only the default empty label is used in CMS.
      const label = field.child(0, 'pSourceFunc');
      if (
        readOid(label.child(0, 'algorithm')) !== oids.pSpecified ||
        (label.children[1]?.content.length ?? 0) > 0
      ) {
        throw new Asn1Error('unsupported OAEP label');
      }
    }
  }
  return { hash, mgfHash };
}

export type KeyTransportUsed = 'rsa-pkcs1' | 'rsa-oaep';

/** Which transport a KeyTransRecipientInfo's keyEncryptionAlgorithm names (for reports). */
export function keyTransportOf(algorithm: Asn1Node): KeyTransportUsed {
  const id = readOid(algorithm.child(0, 'keyEncryptionAlgorithm'));
  if (id === oids.rsaEncryption) return 'rsa-pkcs1';
  if (id === oids.rsaesOaep) return 'rsa-oaep';
  throw new Asn1Error(`unsupported key transport ${id}`);
}

/**
 * The content-encryption key. PKCS#1 v1.5 never throws on a wrong key (implicit rejection:
 * a random key of `keyLength` bytes comes back); OAEP throws, which reveals nothing useful.
 */
export function unwrapKey(
  privateKey: KeyObject,
  algorithm: Asn1Node,
  encryptedKey: Buffer,
  keyLength: number,
): Buffer {
  if (keyTransportOf(algorithm) === 'rsa-pkcs1') {
    return decryptPkcs1v15KeyImplicit(privateKey, encryptedKey, keyLength);
  }
  const { hash, mgfHash } = readOaepParameters(algorithm.children[1]);
  // node:crypto sets one hash for OAEP and MGF1; a partner mixing them cannot be read.
  if (hash !== mgfHash) throw new Asn1Error(`OAEP with ${hash} and MGF1 with ${mgfHash} is not supported`);
  return withoutStackTraces(() =>
    privateDecrypt(
      { key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: micAlgorithms[hash].nodeHash },
      encryptedKey,
    ),
  );
}
