// Covers Base64Lines: whatever the sizes and however the input is cut, it writes exactly what encodeBase64Lines writes for the whole (76-character CRLF lines, none after the last).
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import t from 'tap';
import { encodeBase64Lines } from '../mime/transfer-encoding.js';
import { Base64Lines } from './base64-lines.js';

async function streamed(bytes: Buffer, sliceBytes: number): Promise<Buffer> {
  const slices: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += sliceBytes) slices.push(bytes.subarray(at, at + sliceBytes));
  return buffer(Readable.from(slices).pipe(new Base64Lines()));
}

t.test('the same lines as encodeBase64Lines for every size and cut', async (t) => {
  for (const size of [0, 1, 2, 3, 56, 57, 58, 113, 114, 115, 1000, 65_536, 100_003]) {
    const bytes = randomBytes(size);
    for (const sliceBytes of [1, 7, 57, 58, 4096, 1 << 20]) {
      if (size > 10_000 && sliceBytes < 57) continue; // a byte at a time is slow and adds nothing there
      const out = await streamed(bytes, sliceBytes);
      t.ok(out.equals(encodeBase64Lines(bytes)), `${size} bytes in slices of ${sliceBytes}`);
    }
  }
});
