/**
 * Choosing the S3 multipart part size: stores and reads back a 64 MiB stage through the S3
 * payload store for several part sizes and parts in flight, against s3rver running in a child
 * process (so its memory is not counted), and prints per setting the seconds and this
 * process's peak RSS growth. Options: --mib <stage size> (64), --rounds <n> (2, interleaved).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { S3PayloadStore } from '../storage/payloads/s3-store.js';

const { values } = parseArgs({ options: { mib: { type: 'string' }, rounds: { type: 'string' } } });
const size = Number(values.mib ?? 64) * 1024 * 1024;
const rounds = Number(values.rounds ?? 2);
const MiB = 1024 * 1024;

const dir = await mkdtemp(path.join(os.tmpdir(), 'pier-bench-part-'));
const serve = `const S3rver = require('s3rver');
new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: ${JSON.stringify(dir)}, configureBuckets: [{ name: 'bench' }] })
  .run().then(({ port }) => console.log(port));`;
const child = spawn(process.execPath, ['-e', serve], {
  cwd: path.resolve(import.meta.dirname, '..'),
  stdio: ['ignore', 'pipe', 'inherit'],
});
const port = await new Promise<number>((resolve) =>
  child.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))),
);
process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
process.env.AWS_SECRET_ACCESS_KEY = 'bench';

function pattern(): Readable {
  const chunk = Buffer.alloc(64 * 1024, 7);
  return Readable.from(
    (function* () {
      for (let left = size; left > 0; left -= chunk.length)
        yield chunk.subarray(0, Math.min(left, chunk.length));
    })(),
    { objectMode: false },
  );
}

const settings = [
  { bytes: 5 * MiB, inFlight: 1 },
  { bytes: 5 * MiB, inFlight: 2 },
  { bytes: 8 * MiB, inFlight: 2 },
  { bytes: 16 * MiB, inFlight: 2 },
];
const results: Record<string, { seconds: number[]; rss_growth_mib: number[] }> = {};
try {
  for (let round = 0; round < rounds; round++) {
    for (const parts of settings) {
      const store = new S3PayloadStore(
        { backend: 's3', bucket: 'bench', region: 'us-east-1', endpoint: `http://127.0.0.1:${port}` },
        {},
        parts,
      );
      global.gc?.();
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
      const t0 = performance.now();
      const ref = { messageId: randomUUID(), stage: 'received' as const };
      await store.put(ref, pattern());
      for await (const _chunk of await store.open(ref)) void _chunk;
      clearInterval(sampler);
      await store.removeMessage(ref.messageId);
      store.close();
      const key = `${parts.bytes / MiB} MiB × ${parts.inFlight}`;
      results[key] ??= { seconds: [], rss_growth_mib: [] };
      results[key].seconds.push(Math.round((performance.now() - t0) / 100) / 10);
      results[key].rss_growth_mib.push(Math.round((peak - before) / MiB));
    }
  }
  console.log(JSON.stringify({ benchmark: 's3-part-size', stage_mib: size / MiB, results }));
} finally {
  child.kill();
  await rm(dir, { recursive: true, force: true });
}
