/**
 * What protected a received message, for protocols.as2 (docs/api/messages.md).
 *
 * Each description is one object literal with every field, not a literal spread into another:
 * a literal's shape lives as long as the code that makes it, where one made by a spread is
 * dropped by the next collection once no message holds it. The receiver's optimized code
 * depends on the shape of the field that holds the description; made anew after each
 * collection, it threw that code away every few hundred messages at concurrency 4 (a 70–115 ms
 * TurboFan compile each time: benchmarks/history/2026-11-29-a-description-of-one-shape.md).
 */
import { formatMic, type UnpackedMessage } from '../as2/index.js';

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
    mic: formatMic(u.mic),
    mic_algorithm: u.mic.algorithm,
  };
}

/** A message that was not opened (refused before or while unpacking): no MIC to say. */
export function describeUnopened(): Record<string, unknown> {
  return { mic: null, mic_algorithm: null };
}
