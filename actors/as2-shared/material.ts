/**
 * Certificates and keys as the AS2 actors use them: the core hands over PEM, this turns it
 * into X509Certificate and KeyObject once per distinct PEM (parsing a key costs more than a
 * small message's crypto).
 */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import type { As2Material } from '../../protocol/as2-protocol.js';
import { limits } from '../../limits/limits.js';

const certificates = new Map<string, X509Certificate>();
const keys = new Map<string, KeyObject>();

export function certificateOf(pem: string): X509Certificate {
  let found = certificates.get(pem);
  if (!found) {
    if (certificates.size >= limits.maxCachedCertificatesAndKeys) certificates.clear();
    found = new X509Certificate(pem);
    certificates.set(pem, found);
  }
  return found;
}

export function privateKeyOf(pem: string): KeyObject {
  let found = keys.get(pem);
  if (!found) {
    if (keys.size >= limits.maxCachedCertificatesAndKeys) keys.clear();
    found = createPrivateKey(pem);
    keys.set(pem, found);
  }
  return found;
}

export interface KeyPair {
  certificate: X509Certificate;
  privateKey: KeyObject;
}

/** null when the material carries no key. */
export function keyPairOf(material: As2Material | null): KeyPair | null {
  if (!material?.private_key_pem) return null;
  return {
    certificate: certificateOf(material.certificate_pem),
    privateKey: privateKeyOf(material.private_key_pem),
  };
}
