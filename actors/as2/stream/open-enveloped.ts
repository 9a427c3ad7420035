/**
 * Decrypting an EnvelopedData or AuthEnvelopedData ContentInfo that is read from a stream
 * (a stored message body) instead of memory: one pass reads the structure and counts the
 * encrypted bytes, then each recipient and key pair to try (the same pairs, in the same order,
 * as cms/enveloped-data.ts) reads it again, deciphering into one buffer of that size. Reading
 * the structure first is also what AES-GCM needs: its mac and authenticated attributes come
 * after the content. The result and every failure are those of decryptEnveloped.
 */
import type { X509Certificate } from 'node:crypto';
import {
  contentDecipher,
  readContentAlgorithm,
  type ContentAlgorithm,
  type ContentDecipher,
} from '../../../pki/cms/content-encryption.js';
import {
  decryptionAttempts,
  recipientMismatch,
  unwrapContentKey,
  type ContentKeyDelivery,
  type Decrypted,
  type DecryptionKey,
} from '../../../pki/cms/enveloped-data.js';
import { DispositionError } from '../vocabulary/disposition-error.js';
import { NotStreamable, readEnvelopedStream } from './read-enveloped.js';

/** Opens the ContentInfo from its first byte, each time it is called. */
export type OpenSource = () => Promise<AsyncIterable<Buffer>>;

/**
 * Throws NotStreamable when the message is not one this reader takes as decryptEnveloped
 * would (malformed): the caller opens it in memory then, for the same outcome.
 */
export async function decryptEnvelopedStream(
  open: OpenSource,
  keys: readonly DecryptionKey[],
  /** The partner's certificates, where a 1-pass ECMQV message may name its originator's key. */
  originators: readonly X509Certificate[] = [],
): Promise<Decrypted> {
  const structure = await readEnvelopedStream(await open(), () => {});
  let algorithm: ContentAlgorithm;
  try {
    algorithm = readContentAlgorithm(structure.contentAlgorithm);
  } catch (error) {
    throw new NotStreamable('unreadable content encryption algorithm', { cause: error });
  }
  const auth = structure.authenticated ? { tag: structure.mac!, aad: structure.authAttrs } : undefined;
  // Plaintext is never longer than the ciphertext; the slack takes a final block's output.
  const out = Buffer.allocUnsafe(structure.contentBytes + 32);
  let lastError: unknown = new Error('the message is not encrypted for any of our certificates');
  for (const attempt of decryptionAttempts(structure.recipients, keys)) {
    let keyTransport: ContentKeyDelivery;
    let decipher: ContentDecipher;
    try {
      const unwrapped = unwrapContentKey(attempt, algorithm.keyBytes, originators);
      const contentKey = unwrapped.contentKey;
      keyTransport = unwrapped.keyTransport;
      decipher = contentDecipher(algorithm, contentKey, auth);
      contentKey.fill(0);
    } catch (error) {
      lastError = error;
      continue;
    }
    let length = 0;
    let decipherError: unknown = null;
    // Errors reading the store are not a key problem: they escape.
    await readEnvelopedStream(await open(), (piece) => {
      if (decipherError) return;
      try {
        length += decipher.update(piece).copy(out, length);
      } catch (error) {
        decipherError = error;
      }
    });
    try {
      if (decipherError) throw decipherError;
      length += decipher.final().copy(out, length);
    } catch (error) {
      lastError = error;
      continue;
    }
    out.fill(0, length); // the slack was never written: leave no stale memory behind the view
    return {
      content: out.subarray(0, length),
      algorithm: algorithm.name,
      keyTransport,
      recipient: attempt.key.certificate,
      authenticated: structure.authenticated,
    };
  }
  out.fill(0);
  const mismatch = recipientMismatch(structure.recipients, keys);
  throw new DispositionError(
    'decryption-failed',
    `cannot decrypt: ${mismatch ?? (lastError as Error).message}`,
    {
      cause: lastError,
    },
  );
}
