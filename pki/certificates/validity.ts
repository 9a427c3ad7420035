/** Where a certificate stands in its validity period. Pure: the API schemas import it too. */

/** Days before expiry in which a certificate is `expiring` (docs/api/certificates.md, docs/api/conventions.md#limits). */
export const expiringWindowDays = 30;

export const dayMs = 24 * 60 * 60 * 1000;

export type CertificateState = 'valid' | 'expiring' | 'expired';

export function certificateState(notAfter: Date, now: Date): CertificateState {
  const left = notAfter.getTime() - now.getTime();
  if (left <= 0) return 'expired';
  return left <= expiringWindowDays * dayMs ? 'expiring' : 'valid';
}

/** Whole days until expiry, rounded down; negative once expired. */
export function daysRemaining(notAfter: Date, now: Date): number {
  return Math.floor((notAfter.getTime() - now.getTime()) / dayMs);
}
