/**
 * The certificates and keys an inbound context names, parsed once per context object rather than
 * once per message. Looking each PEM up in material.ts's caches hashed and compared the whole
 * text (about 10 KiB per message with the keys) whenever the context arrived as fresh strings,
 * as it does in a pool thread: a sixth of the pool thread's CPU beyond RSA at concurrency 16.
 */
import type { X509Certificate } from 'node:crypto';
import type { As2InboundContext } from '../../protocol/as2-protocol.js';
import type { DecryptionKey } from '../as2/index.js';
import { certificateOf, keyPairOf, privateKeyOf, type KeyPair } from '../as2-shared/material.js';

export interface OpeningMaterial {
  /** Our certificates with keys that the partner may encrypt to. */
  decryptionKeys: readonly DecryptionKey[];
  verificationCerts: readonly X509Certificate[];
  partnerCertificates: readonly X509Certificate[];
  /** Signs receipts; null when we have no signing key. */
  signer: KeyPair | null;
}

const parsed = new WeakMap<As2InboundContext, OpeningMaterial>();

export function openingMaterialOf(context: As2InboundContext): OpeningMaterial {
  let found = parsed.get(context);
  if (!found) {
    found = context.found
      ? {
          decryptionKeys: context.decryption
            .filter((m) => m.private_key_pem)
            .map((m) => ({
              certificate: certificateOf(m.certificate_pem),
              privateKey: privateKeyOf(m.private_key_pem!),
            })),
          verificationCerts: context.verification.map(certificateOf),
          partnerCertificates: context.partner_certificates.map(certificateOf),
          signer: keyPairOf(context.signing),
        }
      : {
          decryptionKeys: [],
          verificationCerts: [],
          partnerCertificates: [],
          signer: keyPairOf(context.signing),
        };
    parsed.set(context, found);
  }
  return found;
}
