// Covers a pier server on S3 end to end: it starts with storage_in_use s3; a message sent by hand and a file-poller → file-writer flow keep stages above the inline limit in the bucket under messages/<id>/<stage> and small ones in PostgreSQL; downloads stream from the bucket; an object deleted behind pier's back is a 404 and a failed delivery naming the stage; the store stopping in the middle of a multipart upload, and uploads of both paths (one PUT, multipart) with the store stopped, answer 503 STORAGE_UNAVAILABLE naming the store with no message, no object and no open upload once it is back; a delivery fails with a clear last_error and raises storage_failed, and a download is 503.
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import t from 'tap';
import { sql } from '../helpers/database.js';
import {
  form,
  runningOn,
  pollerToWriter,
  sendByHand,
  tempDir,
  upload,
  waitForMessage,
  waitForMessages,
} from '../helpers/flow.js';
import { startS3 } from '../helpers/s3.js';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

/** The bytes before and after the first `marker` (an empty file's place in a form). */
function splitAround(bytes: Buffer, marker: string): [Buffer, Buffer] {
  const at = bytes.indexOf(marker);
  if (at < 0) throw new Error('marker not found');
  return [bytes.subarray(0, at + 4), bytes.subarray(at + 4)];
}

const s3 = await startS3(t);
const server = await startTestServer(t, { storage: s3.settings });
const dir = await tempDir(t);
const { inbox, outbox } = await pollerToWriter(server, dir);
await runningOn(server, 'file-writer', 'out');
await runningOn(server, 'file-poller', 'in');

const big = randomBytes(300 * 1024);
const delivered = (m: { status: string }) => m.status === 'Delivered' || m.status === 'Error';

t.test('the server runs on the saved S3 settings', async (t) => {
  const s = (await server.call('GET', '/api/v1/settings')).body.data;
  t.match(s.storage_in_use, {
    storage_backend: 's3',
    storage_s3_bucket: s3.bucket,
    storage_s3_endpoint: s3.endpoint,
  });
  t.equal(s.restart_needed, false);
});

t.test(
  'a message sent by hand: a large stage in the bucket, a small one inline, both delivered and downloadable',
  async (t) => {
    const large = await sendByHand(
      server,
      { from: 'acme', to: 'globex', target: 'out' },
      { name: 'big.bin', content: big },
    );
    t.equal(large.status, 'Delivered', large.deliveries[0]?.last_error);
    t.same(await s3.keys(`messages/${large.id}/`), [`messages/${large.id}/unpacked`]);
    t.ok(
      (await readFile(path.join(outbox, 'acme', 'big.bin'))).equals(big),
      'the writer streamed it from S3',
    );
    const download = await server.call('GET', `/api/v1/messages/${large.id}/payload?stage=unpacked`);
    t.equal(download.status, 200);
    t.ok(download.bytes.equals(big), 'downloaded byte for byte');

    const small = await sendByHand(
      server,
      { from: 'acme', to: 'globex', target: 'out' },
      { name: 'small.txt', content: 'hello' },
    );
    t.equal(small.status, 'Delivered');
    t.same(await s3.keys(`messages/${small.id}/`), [], 'kept in its payload row');
    t.equal((await server.call('GET', `/api/v1/messages/${small.id}/payload`)).raw, 'hello');
  },
);

t.test('file-poller → file-writer on S3', async (t) => {
  const content = randomBytes(200 * 1024);
  await writeFile(path.join(inbox, 'globex', 'order.bin'), content);
  await writeFile(path.join(inbox, 'globex', 'note.txt'), 'small');
  const names = (l: { file_name: string }[]) => l.map((m) => m.file_name);
  const list = await waitForMessages(
    server,
    'status=Delivered',
    (l) => names(l).includes('order.bin') && names(l).includes('note.txt'),
    'both delivered',
    30_000,
  );
  const order = list.find((m) => m.file_name === 'order.bin');
  t.same(await s3.keys(`messages/${order.id}/`), [`messages/${order.id}/unpacked`]);
  t.ok((await readFile(path.join(outbox, 'acme', 'order.bin'))).equals(content));
  t.equal(await readFile(path.join(outbox, 'acme', 'note.txt'), 'utf8'), 'small');
  t.same(await readdir(path.join(inbox, 'globex')), []);
});

t.test('an object deleted behind pier’s back: a 404 download and a failed delivery, not a 500', async (t) => {
  const m = await sendByHand(
    server,
    { from: 'acme', to: 'globex', target: 'out' },
    { name: 'gone.bin', content: big },
  );
  t.equal(m.status, 'Delivered');
  await s3.client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: `messages/${m.id}/unpacked` }));
  const download = await server.call('GET', `/api/v1/messages/${m.id}/payload?stage=unpacked`);
  t.equal(download.status, 404);
  t.match(download.body.error, {
    code: 'NOT_FOUND',
    message: `Payload unpacked of message ${m.id} is not in the store`,
  });

  const again = await server.call(
    'POST',
    `/api/v1/messages/${m.id}/deliveries/${m.deliveries[0].id}/redeliver`,
  );
  t.equal(again.status, 200, again.raw);
  const failed = await waitForMessage(
    server,
    m.id,
    (x) => x.deliveries[0].state === 'failed',
    'the delivery failed',
  );
  t.equal(failed.deliveries[0].last_error, `Payload unpacked of message ${m.id} is not in the store`);
});

const messageCount = async () => (await sql(server.db.url, 'select count(*)::int as n from message'))[0]!.n;
const storeFailure =
  /^The payload store cannot be used: S3 upload of (part \d+ of )?messages\/[0-9a-f-]+\/unpacked in bucket pier-payloads failed: /;

t.test(
  'the store stopping in the middle of a multipart upload: 503 STORAGE_UNAVAILABLE, no message, no object, no parts once it is back',
  async (t) => {
    const objects = await s3.countObjects();
    const before = await messageCount();
    const fields = form({ from: 'acme', to: 'globex', target: 'out' }, { name: 'cut.bin', content: '' });
    // The form around a 20 MiB file, sent as it is produced: the store is stopped once pier has
    // begun its multipart upload (an upload directory on s3rver's disk), with the file half sent.
    const [head, tail] = splitAround(fields.payload, '\r\n\r\n\r\n--');
    const piece = randomBytes(1024 * 1024);
    const body = Readable.from(
      (async function* () {
        yield head;
        for (let i = 0; i < 20; i++) {
          if (i === 10) {
            await waitFor(async () => (await s3.openUploads()) > 0, 'the multipart upload began', 30_000, 50);
            await s3.stop();
          }
          yield piece;
        }
        yield tail;
      })(),
    );
    const answer = await server.app.inject({
      method: 'POST',
      url: '/api/v1/messages',
      headers: { ...fields.headers, authorization: `Bearer ${server.token}` },
      payload: body,
    });
    t.equal(answer.statusCode, 503, answer.body);
    const error = JSON.parse(answer.body).error;
    t.equal(error.code, 'STORAGE_UNAVAILABLE');
    t.match(error.message, storeFailure);
    t.match(error.details, { storage: 's3', problem: /ECONNREFUSED/ });
    t.equal(await messageCount(), before, 'no message recorded');

    await s3.restart();
    await waitFor(
      async () => (await s3.openUploads()) === 0,
      'the abort tried again once the store is back',
      15_000,
      200,
    );
    t.equal(await s3.countObjects(), objects, 'no object stored');
  },
);

t.test(
  'with the store stopped, uploads (one PUT and multipart) are 503 STORAGE_UNAVAILABLE with nothing written, and a delivery fails with a clear last_error',
  async (t) => {
    const m = await sendByHand(
      server,
      { from: 'acme', to: 'globex', target: 'out' },
      { name: 'later.bin', content: big },
    );
    t.equal(m.status, 'Delivered');
    const before = await messageCount();
    const objects = await s3.countObjects();
    await s3.stop();

    for (const [path, content] of [
      ['one PUT', big],
      ['multipart', randomBytes(9 * 1024 * 1024)],
    ] as const) {
      const started = Date.now();
      const refused = await upload(
        server,
        { from: 'acme', to: 'globex', target: 'out' },
        { name: 'x.bin', content },
      );
      t.equal(refused.status, 503, `${path}: ${refused.raw}`);
      t.equal(refused.body.error.code, 'STORAGE_UNAVAILABLE');
      t.match(refused.body.error.message, storeFailure);
      t.match(refused.body.error.message, /ECONNREFUSED/);
      t.match(refused.body.error.details, {
        storage: 's3',
        operation: /^upload of /,
        problem: /ECONNREFUSED/,
      });
      t.ok(Date.now() - started < 15_000, `${path}: answered in ${Date.now() - started} ms`);
      t.equal(await messageCount(), before, `${path}: no message recorded`);
    }

    await server.call('POST', `/api/v1/messages/${m.id}/deliveries/${m.deliveries[0].id}/redeliver`);
    const retried = await waitForMessage(
      server,
      m.id,
      (x) => x.deliveries[0].last_error !== '',
      'the delivery attempt failed',
      60_000,
    );
    t.match(
      retried.deliveries[0].last_error,
      /^S3 download of messages\/.+\/unpacked in bucket pier-payloads failed: .*ECONNREFUSED/,
    );
    t.not(delivered(retried) && retried.status === 'Delivered', true);
    const alerts = await sql(
      server.db.url,
      "select severity, subject_kind, subject_id, summary from alert where code = 'storage_failed'",
    );
    t.equal(alerts.length, 1, 'storage_failed raised once');
    t.match(alerts[0], { severity: 'critical', subject_kind: 'storage', subject_id: 's3' });
    t.match(alerts[0]!.summary, /ECONNREFUSED/);

    const download = await server.call('GET', `/api/v1/messages/${m.id}/payload?stage=unpacked`);
    t.equal(download.status, 503, 'a download is 503 as well');
    t.equal(download.body.error.code, 'STORAGE_UNAVAILABLE');

    await s3.restart();
    t.equal(await s3.countObjects(), objects, 'no object was added while the store was down');
    t.equal(await s3.openUploads(), 0, 'no multipart upload left open');
  },
);
