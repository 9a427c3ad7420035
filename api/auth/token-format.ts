/**
 * The shape of API token values: `pier_` + 12-character public id + 32-character secret,
 * all base62. Only the SHA-256 of the whole value is stored.
 */
import { createHash, randomInt } from 'node:crypto';

const tokenPrefix = 'pier';
const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const publicIdLength = 12;
const secretLength = 32;
const tokenPattern = new RegExp(
  `^${tokenPrefix}_([0-9A-Za-z]{${publicIdLength}})([0-9A-Za-z]{${secretLength}})$`,
);

function randomText(length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += alphabet[randomInt(alphabet.length)];
  return text;
}

export function hashToken(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function generateToken(): { value: string; publicId: string; hash: string } {
  const publicId = randomText(publicIdLength);
  const value = `${tokenPrefix}_${publicId}${randomText(secretLength)}`;
  return { value, publicId, hash: hashToken(value) };
}

export function looksLikeApiToken(value: string): boolean {
  return value.startsWith(`${tokenPrefix}_`);
}

/** The public id of a well-formed token, or undefined. */
export function publicIdOf(value: string): string | undefined {
  return tokenPattern.exec(value)?.[1];
}
