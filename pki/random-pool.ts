/**
 * Small random draws from a buffer that OpenSSL fills 4 KiB at a time. Each `randomBytes` call
 * costs 7–20 µs on these machines whatever its size (OpenSSL's generator is entered and locked
 * every time), and the receive path draws a fallback key for every RSA key transport it opens.
 * A draw is copied out and its bytes in the buffer are zeroed at once, so no bytes are handed
 * out twice and none stay behind in memory.
 */
import { randomBytes, randomFillSync } from 'node:crypto';

const poolBytes = 4096;
/** Draws above this size go to OpenSSL directly: batching them saves nothing. */
const largestPooled = 256;

let pool = Buffer.alloc(0);
let used = 0;

/** `size` bytes from the cryptographically strong generator, as `randomBytes(size)` gives them. */
export function pooledRandomBytes(size: number): Buffer {
  if (size > largestPooled) return randomBytes(size);
  if (used + size > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafeSlow(poolBytes));
    used = 0;
  }
  const drawn = Buffer.from(pool.subarray(used, used + size));
  pool.fill(0, used, used + size);
  used += size;
  return drawn;
}
