/**
 * The local administrator's password: scrypt with a random salt, compared in
 * constant time. A missing user costs the same scrypt run as a wrong password, so timing does
 * not tell which names exist.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** N = 2^15, r = 8, p = 1: about 32 MiB and tens of milliseconds per check. */
const cost = { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const keyLength = 32;

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCallback(password, salt, keyLength, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/** Stored form: `scrypt$N$r$p$<salt base64>$<key base64>`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, cost);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** A hash that matches no password, checked when the user is unknown so the answer takes as long. */
const decoy = `scrypt$${cost.N}$${cost.r}$${cost.p}$${randomBytes(16).toString('base64')}$${randomBytes(keyLength).toString('base64')}`;

export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const real = stored !== undefined && stored !== '';
  const [scheme, n, r, p, salt, key] = (real ? stored : decoy).split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: cost.maxmem,
  });
  return timingSafeEqual(actual, expected) && real;
}

/** Rules for a new password. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < 12) return 'Must be at least 12 characters';
  if (password.length > 1024) return 'Must be at most 1024 characters';
  return undefined;
}
