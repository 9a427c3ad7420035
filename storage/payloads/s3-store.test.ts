// Covers the S3 payload store against a real S3 server (s3rver): keys messages/<id>/<stage>, sizes from 0 bytes across the inline limit, the 5 MiB and part-size boundaries and a 64 MiB stage streamed both ways with the memory it takes, deletion, a missing stage, an upload stopped midway that leaves no object and no open multipart upload, and the failures of a wrong bucket, a refused connection and an endpoint that never answers.
import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import t from 'tap';
import { refusedEndpoint, startS3, startSilentEndpoint } from '../../test/helpers/s3.js';
import { keepStream } from './inline.js';
import { isStorageFailure } from './s3-client.js';
import { S3PayloadStore } from './s3-store.js';
import { PayloadMissing, PayloadTooLarge, type PayloadRef } from './store.js';
import { limits } from '../../limits/limits.js';

const s3 = await startS3(t);
const store = new S3PayloadStore({
  backend: 's3',
  bucket: s3.bucket,
  region: s3.region,
  endpoint: s3.endpoint,
});
t.teardown(() => store.close());
const MiB = 1024 * 1024;

/** `size` bytes of a repeatable pattern, in 64 KiB chunks, never all in memory. */
function pattern(size: number, seed = 7): Readable {
  const chunk = Buffer.alloc(64 * 1024);
  for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 31 + seed) & 0xff;
  return Readable.from(
    (function* () {
      for (let left = size; left > 0; left -= chunk.length)
        yield chunk.subarray(0, Math.min(left, chunk.length));
    })(),
    { objectMode: false },
  );
}

async function digest(stream: AsyncIterable<Buffer>): Promise<{ sha: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of stream) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { sha: hash.digest('hex'), bytes };
}

const ref = (stage: PayloadRef['stage'] = 'unpacked'): PayloadRef => ({ messageId: randomUUID(), stage });

t.test(
  'sizes around every boundary are stored under messages/<id>/<stage> and read back byte for byte',
  async (t) => {
    const sizes = [
      0,
      1,
      limits.inlineMaxBytes + 1,
      5 * MiB - 1,
      5 * MiB,
      5 * MiB + 1,
      limits.s3PartBytes - 1,
      limits.s3PartBytes,
      limits.s3PartBytes + 1,
    ];
    for (const size of sizes) {
      const r = ref();
      t.equal(await store.put(r, pattern(size)), size, `${size} bytes stored`);
      t.same(await s3.keys(`messages/${r.messageId}/`), [`messages/${r.messageId}/unpacked`]);
      t.same(await digest(await store.open(r)), await digest(pattern(size)), `${size} bytes read back`);
    }
    const small = ref('headers');
    t.equal(await store.putBytes(small, Buffer.from('Subject: hi\r\n')), 13);
    t.equal((await digest(await store.open(small))).bytes, 13);
    t.equal(await s3.openUploads(), 0, 'no multipart upload left open');
  },
);

t.test('stages up to the inline limit stay in the row; one byte more goes to the bucket', async (t) => {
  for (const [size, inline] of [
    [limits.inlineMaxBytes - 1, true],
    [limits.inlineMaxBytes, true],
    [limits.inlineMaxBytes + 1, false],
  ] as const) {
    const r = ref();
    const kept = await keepStream(store, r, pattern(size));
    t.equal(kept.size_bytes, size);
    t.equal(kept.content !== undefined, inline, `${size} bytes ${inline ? 'inline' : 'in S3'}`);
    t.same(await s3.keys(`messages/${r.messageId}/`), inline ? [] : [`messages/${r.messageId}/unpacked`]);
  }
});

t.test('a 64 MiB stage streams in and out without being held in memory', async (t) => {
  const size = 64 * MiB;
  const r = ref('received');
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  try {
    t.equal(await store.put(r, pattern(size)), size);
    const back = await digest(await store.open(r));
    t.same(back, await digest(pattern(size)), '64 MiB read back byte for byte');
  } finally {
    clearInterval(sampler);
  }
  const growth = (peak - before) / MiB;
  t.comment(
    `RSS grew by ${growth.toFixed(1)} MiB while storing and reading 64 MiB (part ${limits.s3PartBytes / MiB} MiB)`,
  );
  // Whole in memory would be 64 MiB for the stage alone; generous for GC timing on a loaded machine.
  t.ok(growth < 56, `RSS growth ${growth.toFixed(1)} MiB stays below the stage's size`);
  t.equal(await s3.openUploads(), 0);
});

t.test('an upload stopped midway leaves neither an object nor an open multipart upload', async (t) => {
  const tooLong = ref();
  await t.rejects(store.put(tooLong, pattern(20 * MiB), { maxBytes: 18 * MiB }), PayloadTooLarge);
  t.same(await s3.keys(`messages/${tooLong.messageId}/`), [], 'no object');
  t.equal(await s3.openUploads(), 0, 'the multipart upload was aborted');

  const broken = ref();
  const failing = Readable.from(
    (async function* () {
      yield* pattern(10 * MiB);
      throw new Error('the sender went away');
    })(),
  );
  await t.rejects(store.put(broken, failing));
  t.same(await s3.keys(`messages/${broken.messageId}/`), []);
  t.equal(await s3.openUploads(), 0);
});

t.test('removeMessage deletes every stage; a missing stage is PayloadMissing', async (t) => {
  const id = randomUUID();
  await store.putBytes({ messageId: id, stage: 'received' }, Buffer.alloc(10));
  await store.putBytes({ messageId: id, stage: 'headers' }, Buffer.alloc(10));
  await store.removeMessage(id);
  t.same(await s3.keys(`messages/${id}/`), []);
  await t.rejects(store.open({ messageId: id, stage: 'received' }), PayloadMissing);
});

t.test(
  'a wrong bucket, a refused connection and a silent endpoint fail with the problem, in bounded time',
  async (t) => {
    const limits = { connectMs: 1_000, idleMs: 1_500, callMs: 1_500, attempts: 2 };
    const wrong = new S3PayloadStore(
      { backend: 's3', bucket: 'no-such-bucket', region: s3.region, endpoint: s3.endpoint },
      limits,
    );
    await t.rejects(wrong.putBytes(ref(), Buffer.from('x')), {
      name: 'StorageFailed',
      message: /^S3 upload of messages\/.+ in bucket no-such-bucket failed: NoSuchBucket: /,
    });
    await t.rejects(wrong.checkBucket(), {
      name: 'StorageFailed',
      message: 'S3 check of the bucket failed: NoSuchBucket: bucket no-such-bucket does not exist',
    });
    const failure = await wrong.putBytes(ref(), Buffer.from('x')).catch((error: unknown) => error);
    t.ok(
      isStorageFailure(failure) && isStorageFailure((failure as Error).message),
      'told as a store failure',
    );
    t.notOk(isStorageFailure(new PayloadMissing(ref()).message), 'a missing stage is not one');
    wrong.close();

    const refused = new S3PayloadStore(
      { backend: 's3', bucket: s3.bucket, region: s3.region, endpoint: await refusedEndpoint() },
      limits,
    );
    await t.rejects(refused.open(ref()), { name: 'StorageFailed', message: /ECONNREFUSED/ });
    refused.close();

    const silent = new S3PayloadStore(
      { backend: 's3', bucket: s3.bucket, region: s3.region, endpoint: await startSilentEndpoint(t) },
      limits,
    );
    const started = Date.now();
    await t.rejects(silent.putBytes(ref(), Buffer.from('x')), { name: 'StorageFailed' });
    await t.rejects(silent.put(ref(), pattern(100)), { name: 'StorageFailed' });
    await t.rejects(silent.open(ref()), { name: 'StorageFailed' });
    t.ok(Date.now() - started < 30_000, 'every call gave up instead of hanging');
    silent.close();
  },
);
