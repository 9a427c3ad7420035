// Covers `pier storage migrate --to s3|local`: with the server still serving from its local store, every stage held by the store (not those inline in PostgreSQL) is copied to the saved bucket, verified and recorded, with progress and a summary; a second run copies only what arrived since; a copy recorded but lost is redone; a stage missing from the source is a reported failure and exit 1; a --to that is not the saved storage is refused; a server restarted on S3 serves every payload; and the way back to a local directory.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { sql } from '../helpers/database.js';
import { collectOutput } from '../helpers/child-output.js';
import { runningOn, must, parties, sendByHand, tempDir } from '../helpers/flow.js';
import { startS3 } from '../helpers/s3.js';
import { startTestServer } from '../helpers/server.js';

const root = path.resolve(import.meta.dirname, '../..');
const s3 = await startS3(t);
const server = await startTestServer(t);
const dir = await tempDir(t, 'pier-storage-migrate-');
await parties(server);
await must(server, '/plugins/configs?type=file-writer', { name: 'out', directory: path.join(dir, 'out') });
await runningOn(server, 'file-writer', 'out');

const sent = new Map<string, Buffer>();
async function send(content: Buffer) {
  const name = `f${sent.size}-${randomBytes(4).toString('hex')}.bin`;
  const m = await sendByHand(server, { from: 'acme', to: 'globex', target: 'out' }, { name, content });
  if (m.status !== 'Delivered') throw new Error(`not delivered: ${JSON.stringify(m.deliveries)}`);
  sent.set(m.id as string, content);
  return m.id as string;
}

function pier(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, 'bin/pier-sources.js'), ...args], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: server.db.url,
        PIER_DATA_DIR: path.join(dir, 'cli-data'),
        AWS_ACCESS_KEY_ID: 'S3RVER',
        AWS_SECRET_ACCESS_KEY: 'migrate-test-secret',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = collectOutput(child);
    child.once('exit', (code) => resolve({ code, ...output }));
  });
}
const save = async (body: Record<string, string>) =>
  t.equal((await server.call('PUT', '/api/v1/settings', { body })).status, 200);

const big = () => randomBytes(100_000);
const ids: string[] = [];
let lost = '';
ids.push(await send(big()), await send(big()), await send(big()));
const small = await send(Buffer.from('inline'));

t.test('the first run copies every stored stage and verifies it; the server keeps serving', async (t) => {
  await save(s3.settings);
  const run = await pier('storage', 'migrate', '--to', 's3');
  t.equal(run.code, 0, run.stderr);
  t.match(
    run.stdout,
    `Copying stages from local directory ${server.dataDir}/payloads to S3 bucket ${s3.bucket}`,
  );
  t.match(run.stdout, 'Copied 3 objects (300000 bytes), 0 copied by earlier runs, 0 failures.');
  t.match(run.stderr, '100% 3/3 stages, 0.3 MiB, 0 failed');
  t.same(await s3.keys(), ids.map((id) => `messages/${id}/unpacked`).sort());
  t.same(await s3.keys(`messages/${small}/`), [], 'the inline stage stays in PostgreSQL');
  // Still serving from local storage, as the process was started.
  ids.push(await send(big()));
  t.equal((await server.call('GET', `/api/v1/messages/${ids[3]}/payload`)).bytes.length, 100_000);
});

t.test('a second run copies only what arrived since', async (t) => {
  const run = await pier('storage', 'migrate', '--to', 's3');
  t.equal(run.code, 0);
  t.match(run.stdout, 'Copied 1 objects (100000 bytes), 3 copied by earlier runs, 0 failures.');
  t.equal((await s3.keys()).length, 4);
});

t.test(
  'a copy whose record was lost is copied again; a stage missing from the source fails the run',
  async (t) => {
    await sql(server.db.url, 'delete from storage_copy where message_id = $1', [ids[0]]);
    const redo = await pier('storage', 'migrate', '--to', 's3');
    t.equal(redo.code, 0);
    t.match(redo.stdout, 'Copied 1 objects (100000 bytes), 3 copied by earlier runs, 0 failures.');

    lost = await send(big());
    await rm(path.join(server.dataDir, 'payloads', lost), { recursive: true });
    const run = await pier('storage', 'migrate', '--to', 's3');
    t.equal(run.code, 1);
    t.match(run.stdout, `failed: message ${lost} stage unpacked: not in the source store`);
    t.match(run.stdout, 'Copied 0 objects (0 bytes), 4 copied by earlier runs, 1 failures.');
    t.match(run.stderr, 'pier: 1 stages were not copied; run the command again to retry them');
    t.same(await s3.keys(`messages/${lost}/`), [], 'nothing half-written');
    sent.delete(lost);
  },
);

t.test('--to must be the saved storage', async (t) => {
  const run = await pier('storage', 'migrate', '--to', 'local');
  t.equal(run.code, 1);
  t.match(
    run.stderr,
    'pier: The saved storage is s3: save storage_backend local (PUT /api/v1/settings) before migrating to it',
  );
});

t.test('a server started on S3 serves every payload, and the way back to local works', async (t) => {
  const onS3 = await startTestServer(t, { db: server.db });
  t.equal((await onS3.call('GET', '/api/v1/settings')).body.data.storage_in_use.storage_backend, 's3');
  for (const [id, content] of sent) {
    const r = await onS3.call('GET', `/api/v1/messages/${id}/payload`);
    t.ok(r.status === 200 && r.bytes.equals(content), `${id} from S3`);
  }
  const back = path.join(dir, 'back');
  await save({ storage_backend: 'local', storage_local_directory: back });
  const run = await pier('storage', 'migrate', '--to', 'local');
  // The stage lost from the local store is still missing, now from the bucket.
  t.equal(run.code, 1);
  t.match(run.stdout, `failed: message ${lost} stage unpacked: not in the source store`);
  t.match(run.stdout, 'Copied 4 objects (400000 bytes), 0 copied by earlier runs, 1 failures.');
  t.same((await readdir(back)).sort(), [...ids].sort());
});
