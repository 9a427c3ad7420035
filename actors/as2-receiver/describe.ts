/** What protected a received message, for protocols.as2 (docs/api/messages.md). */
import type { UnpackedMessage } from '../as2/index.js';

export function describeUnpacked(u: UnpackedMessage): Record<string, unknown> {
  return {
    signed: u.signature !== null,
    signature: u.signature
      ? {
          algorithm: u.signature.digestAlgorithm,
          scheme: u.signature.scheme,
          signer: u.signature.signer.subject.replace(/\n/g, ', '),
          signed_attributes: u.signature.signedAttributes,
          // Said only when pier was liberal, so an operator sees it read more than the RFC asks.
          ...(u.signature.lenientPss
            ? {
                leniency: `RSASSA-PSS parameters were absent; verified with ${u.signature.digestAlgorithm} for hash and MGF1 and the ${u.signature.pssSaltLength}-byte salt the signature carries, not RFC 4055's SHA-1 defaults`,
              }
            : {}),
        }
      : null,
    encrypted: u.encryption !== null,
    encryption: u.encryption
      ? { algorithm: u.encryption.algorithm, key_transport: u.encryption.keyTransport }
      : null,
    compressed: u.compression !== null,
    compression: u.compression,
    layers: u.layers,
  };
}
