/**
 * The Message Integrity Check of RFC 4130 §7.3.1 and its `Received-Content-MIC` form
 * (`base64-digest, algorithm`). Which bytes it covers is decided by the caller:
 * - a signed message: the signed entity, headers and body, exactly as signed;
 * - an encrypted, unsigned one: the decrypted entity, headers and body;
 * - neither: the content (the HTTP body) without headers.
 */
import { timingSafeEqual } from 'node:crypto';
import { digestOf } from '../../pki/cms/signed-data.js';
import {
  micAlgorithmName,
  micAlgorithms,
  parseMicAlgorithm,
  type MicAlgorithm,
  type MicSpelling,
} from '../../pki/algorithms/mic-algorithms.js';

export interface Mic {
  algorithm: MicAlgorithm;
  digest: Buffer;
}

export function computeMic(content: Buffer | readonly Buffer[], algorithm: MicAlgorithm): Mic {
  return { algorithm, digest: digestOf(Buffer.isBuffer(content) ? [content] : content, algorithm) };
}

/**
 * `Received-Content-MIC` value. `spelling` is either a style or the exact name the partner
 * asked for in `signed-receipt-micalg`, echoed back so the partner finds its own spelling.
 */
export function formatMic(mic: Mic, spelling: MicSpelling | string = 'rfc5751'): string {
  const name =
    spelling === 'rfc5751' || spelling === 'rfc3851'
      ? micAlgorithmName(mic.algorithm, spelling)
      : parseMicAlgorithm(spelling) === mic.algorithm
        ? spelling.trim()
        : micAlgorithmName(mic.algorithm);
  return `${mic.digest.toString('base64')}, ${name}`;
}

export interface ReceivedMic {
  digest: Buffer;
  /** null when the partner named an algorithm pier does not know. */
  algorithm: MicAlgorithm | null;
  /** The algorithm as the partner wrote it. */
  algorithmName: string;
}

/** Reads `Received-Content-MIC: <base64>, <algorithm>`; null when it is not in that form. */
export function parseMic(value: string): ReceivedMic | null {
  const match = /^\s*([A-Za-z0-9+/=\s]+?)\s*,\s*([^,\s]+)\s*$/.exec(value);
  if (!match) return null;
  const text = match[1]!.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return null;
  return {
    digest: Buffer.from(text, 'base64'),
    algorithm: parseMicAlgorithm(match[2]!),
    algorithmName: match[2]!,
  };
}

/** The MIC a partner returned equals the one pier computed: same algorithm, same digest. */
export function sameMic(received: ReceivedMic | Mic, expected: Mic): boolean {
  if (received.algorithm !== expected.algorithm) return false;
  if (received.digest.length !== micAlgorithms[expected.algorithm].digestBytes) return false;
  return timingSafeEqual(received.digest, expected.digest);
}
