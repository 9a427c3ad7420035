/**
 * Choosing the S3 multipart part size: stores and reads back a stage (64 MiB) through the S3
 * payload store for several part sizes × part buffers in flight, against s3rver running in a
 * child process (so its memory is not counted), and prints per setting the seconds and the peak
 * RSS growth of the process that stored it. Each setting runs in a fresh process (a heap grown by
 * one setting would hide the next one's growth), `--rounds` times, interleaved. With the store's
 * bound the growth is about part size × parts in flight whatever the stage's size: compare
 * `--mib 64` with `--mib 256`.
 * Options: --mib <stage size> (64), --rounds <n> (2), --setting <MiB>x<in flight> (one setting,
 * in this process; what the default runs for each).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { S3PayloadStore } from '../storage/payloads/s3-store.js';

const { values } = parseArgs({
  options: { mib: { type: 'string' }, rounds: { type: 'string' }, setting: { type: 'string' } },
});
const size = Number(values.mib ?? 64) * 1024 * 1024;
const rounds = Number(values.rounds ?? 2);
const MiB = 1024 * 1024;

// The s3rver of the process that runs every setting; one setting alone is given its port.
const given = process.env.PIER_BENCH_S3_PORT;
const dir = given ? undefined : await mkdtemp(path.join(os.tmpdir(), 'pier-bench-part-'));
const serve = `const S3rver = require('s3rver');
new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: ${JSON.stringify(dir)}, configureBuckets: [{ name: 'bench' }] })
  .run().then(({ port }) => console.log(port));`;
const child = given
  ? undefined
  : spawn(process.execPath, ['-e', serve], {
      cwd: path.resolve(import.meta.dirname, '..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
const port = given
  ? Number(given)
  : await new Promise<number>((resolve) =>
      child!.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))),
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

const settings = ['5x2', '8x2', '8x3', '16x2'];

interface Figures {
  seconds: number;
  /** Peak growth while storing, then while reading back (each from the RSS before storing). */
  rss_growth_put_mib: number;
  rss_growth_read_mib: number;
}

/** One setting in this process. */
async function measure(setting: string): Promise<Figures> {
  const [mib, inFlight] = setting.split('x').map(Number) as [number, number];
  const store = new S3PayloadStore(
    { backend: 's3', bucket: 'bench', region: 'us-east-1', endpoint: `http://127.0.0.1:${port}` },
    {},
    { bytes: mib * MiB, inFlight },
  );
  // Loads the store's code and opens a connection first: the figure is the stage's alone.
  const warm = { messageId: randomUUID(), stage: 'received' as const };
  await store.putBytes(warm, Buffer.alloc(1024));
  await store.removeMessage(warm.messageId);
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const t0 = performance.now();
  const ref = { messageId: randomUUID(), stage: 'received' as const };
  await store.put(ref, pattern());
  const put = peak;
  global.gc?.();
  peak = process.memoryUsage().rss;
  for await (const _chunk of await store.open(ref)) void _chunk;
  clearInterval(sampler);
  const seconds = Math.round((performance.now() - t0) / 100) / 10;
  await store.removeMessage(ref.messageId);
  store.close();
  return {
    seconds,
    rss_growth_put_mib: Math.round((put - before) / MiB),
    rss_growth_read_mib: Math.round((peak - before) / MiB),
  };
}

/** One setting in a fresh process (this script with --setting, sharing this s3rver). */
function inFreshProcess(setting: string): Promise<Figures> {
  return new Promise((resolve, reject) => {
    const run = spawn(
      process.execPath,
      [
        '--expose-gc',
        '--import',
        'tsx',
        import.meta.filename,
        '--mib',
        String(size / MiB),
        '--setting',
        setting,
      ],
      { env: { ...process.env, PIER_BENCH_S3_PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    run.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    run.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${setting}: exit ${code}`)),
    );
  });
}

try {
  if (values.setting) console.log(JSON.stringify(await measure(values.setting)));
  else {
    const results: Record<string, Record<keyof Figures, number[]>> = {};
    for (let round = 0; round < rounds; round++) {
      for (const setting of settings) {
        const r = await inFreshProcess(setting);
        const key = setting.replace('x', ' MiB × ');
        results[key] ??= { seconds: [], rss_growth_put_mib: [], rss_growth_read_mib: [] };
        for (const figure of Object.keys(r) as (keyof Figures)[]) results[key][figure].push(r[figure]);
      }
    }
    console.log(JSON.stringify({ benchmark: 's3-part-size', stage_mib: size / MiB, results }));
  }
} finally {
  child?.kill();
  if (dir) await rm(dir, { recursive: true, force: true });
}
