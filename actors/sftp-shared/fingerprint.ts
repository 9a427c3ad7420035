/**
 * Host key fingerprints as OpenSSH prints them (`ssh-keygen -lf`, the first-contact prompt):
 * `SHA256:` and the unpadded base64 of the SHA-256 of the key's wire form. Operators compare
 * this text with what the partner sent them, so it is the only form pier shows and accepts.
 */
import { createHash } from 'node:crypto';

/** 43 base64 characters: 32 bytes without the padding OpenSSH leaves off. */
export const fingerprintPattern = /^SHA256:[A-Za-z0-9+/]{43}$/;

export function fingerprintOf(hostKey: Buffer): string {
  return `SHA256:${createHash('sha256').update(hostKey).digest('base64').replace(/=+$/, '')}`;
}

/** The fingerprint as entered, tolerating the padding some tools print; undefined when it is not one. */
export function normalFingerprint(text: string): string | undefined {
  const trimmed = text.trim().replace(/=+$/, '');
  return fingerprintPattern.test(trimmed) ? trimmed : undefined;
}
