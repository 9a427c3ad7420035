/**
 * Which certificates a refused message was checked with, in words for the refusal text (the
 * message's history and the `message refused` log line): the operator who reads "decryption
 * failed" at 3 a.m. needs to know which of our certificates were tried, and after an
 * authentication or integrity failure which of the partner's. Names, serial numbers and
 * expiry dates only; never a key.
 */
import { X509Certificate } from 'node:crypto';
import type { As2InboundContext } from '../../protocol/as2-protocol.js';

/** Checks that fail with the partner's signature certificates. */
const signatureChecks = new Set(['authentication-failed', 'integrity-check-failed']);

function describe(pem: string): string {
  try {
    const c = new X509Certificate(pem);
    const cn = /(?:^|\n)CN=([^\n]*)/.exec(c.subject)?.[1] ?? c.subject.replace(/\n/g, ', ');
    return `${cn} (serial ${c.serialNumber}, valid until ${new Date(c.validTo).toISOString().slice(0, 10)})`;
  } catch {
    return 'an unreadable certificate';
  }
}

/** `; checked with …`, or '' when the check used no certificate (an unknown partner, a policy). */
export function checkedCertificates(modifier: string, context: As2InboundContext): string {
  if (!context.found) return '';
  if (modifier === 'decryption-failed') {
    const ours = context.decryption.map((m) => describe(m.certificate_pem));
    return ours.length === 0
      ? '; no certificate of ours to decrypt with'
      : `; our certificates tried: ${ours.join(', ')}`;
  }
  if (signatureChecks.has(modifier)) {
    const theirs = context.verification.map(describe);
    return theirs.length === 0
      ? '; the partner has no signature certificate'
      : `; the partner's certificates checked: ${theirs.join(', ')}`;
  }
  return '';
}
