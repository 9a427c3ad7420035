/**
 * What a partner profile's `signing_algorithm` names: the digest, and for RSA keys the
 * signature scheme (PKCS#1 v1.5, or RSASSA-PSS written with explicit parameters and a salt as
 * long as the digest). With an EC signing key every choice signs ECDSA with its digest. One
 * table, read by the API's validation and by the sender.
 */
import type { SignatureScheme } from './encryption-algorithms.js';
import type { MicAlgorithm } from './mic-algorithms.js';

export const signingChoices = {
  sha1: { digest: 'sha-1', scheme: 'rsa-pkcs1' },
  sha256: { digest: 'sha-256', scheme: 'rsa-pkcs1' },
  sha384: { digest: 'sha-384', scheme: 'rsa-pkcs1' },
  sha512: { digest: 'sha-512', scheme: 'rsa-pkcs1' },
  'sha3-256': { digest: 'sha3-256', scheme: 'rsa-pkcs1' },
  'sha3-384': { digest: 'sha3-384', scheme: 'rsa-pkcs1' },
  'sha3-512': { digest: 'sha3-512', scheme: 'rsa-pkcs1' },
  'rsa-pss-sha256': { digest: 'sha-256', scheme: 'rsa-pss' },
  'rsa-pss-sha384': { digest: 'sha-384', scheme: 'rsa-pss' },
  'rsa-pss-sha512': { digest: 'sha-512', scheme: 'rsa-pss' },
} as const satisfies Record<string, { digest: MicAlgorithm; scheme: SignatureScheme }>;

export type SigningChoice = keyof typeof signingChoices;

/** The digest and scheme a profile's `signing_algorithm` names; null for `none` or an unknown name. */
export function signingChoiceOf(name: string): { digest: MicAlgorithm; scheme: SignatureScheme } | null {
  return Object.hasOwn(signingChoices, name) ? signingChoices[name as SigningChoice] : null;
}
