// Covers POST /api/v1/settings/storage/test (docs/api/conventions.md#limits): it probes the saved settings (not those in use) and answers 200 with ok, storage and elapsed_ms; on failure the step and the store's own words, for a missing or unwritable local directory, a wrong bucket, refused connections and an endpoint that never answers (within 10 s); the probe leaves nothing behind.
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { tempDir } from '../helpers/flow.js';
import { refusedEndpoint, startS3, startSilentEndpoint } from '../helpers/s3.js';
import { startTestServer } from '../helpers/server.js';

const s3 = await startS3(t);
const server = await startTestServer(t);
const dir = await tempDir(t, 'pier-storage-test-');

async function save(body: Record<string, string>) {
  const r = await server.call('PUT', '/api/v1/settings', { body });
  if (r.status !== 200) throw new Error(r.raw);
}
const probe = () => server.call('POST', '/api/v1/settings/storage/test');

t.test('the local directory in use passes, and the probe leaves nothing behind', async (t) => {
  const r = await probe();
  t.equal(r.status, 200);
  t.match(r.body.data, {
    ok: true,
    storage: { storage_backend: 'local', storage_local_directory: `${server.dataDir}/payloads` },
    elapsed_ms: Number,
  });
  t.notOk('step' in r.body.data);
  t.same(await readdir(path.join(server.dataDir, 'payloads')), []);
});

t.test('a missing local directory and one that cannot be written name their step', async (t) => {
  await save({ storage_backend: 'local', storage_local_directory: path.join(dir, 'missing') });
  const missing = await probe();
  t.equal(missing.status, 200);
  t.match(missing.body.data, {
    ok: false,
    step: 'directory',
    problem: `${path.join(dir, 'missing')}: no such directory`,
  });

  await writeFile(path.join(dir, 'a-file'), 'x');
  await save({ storage_local_directory: path.join(dir, 'a-file') });
  t.match((await probe()).body.data, { ok: false, step: 'directory', problem: /is not a directory/ });

  // The tests may run as root, who passes permission bits: the kernel refuses writes to /proc/self.
  // A path on /proc is refused when saved, so the directory is reached through a link, which
  // saving does not follow.
  const unwritable = path.join(dir, 'link-to-proc');
  await symlink('/proc/self', unwritable);
  await save({ storage_local_directory: unwritable });
  t.match((await probe()).body.data, {
    ok: false,
    step: 'write',
    problem: `${unwritable} is not writable by this process`,
  });

  await mkdir(path.join(dir, 'fresh'));
  await save({ storage_local_directory: path.join(dir, 'fresh') });
  t.match((await probe()).body.data, { ok: true });
  t.same(await readdir(path.join(dir, 'fresh')), []);
});

t.test('saved S3 settings are probed while the process keeps its local store', async (t) => {
  await save({ ...s3.settings });
  const r = await probe();
  t.equal(r.status, 200);
  t.match(r.body.data, {
    ok: true,
    storage: { storage_backend: 's3', storage_s3_bucket: s3.bucket, storage_s3_endpoint: s3.endpoint },
  });
  t.same(await s3.keys(), [], 'the probe blob was deleted');
  const settings = await server.call('GET', '/api/v1/settings');
  t.equal(settings.body.data.storage_in_use.storage_backend, 'local');
  t.equal(settings.body.data.restart_needed, true);
});

t.test('a wrong bucket fails the connect step with the service words', async (t) => {
  await save({ ...s3.settings, storage_s3_bucket: 'no-such-bucket' });
  const r = await probe();
  t.equal(r.status, 200);
  t.match(r.body.data, {
    ok: false,
    step: 'connect',
    problem: 'NoSuchBucket: bucket no-such-bucket does not exist',
  });
});

t.test('refused connections fail the connect step', async (t) => {
  await save({ ...s3.settings, storage_s3_endpoint: await refusedEndpoint() });
  t.match((await probe()).body.data, { ok: false, step: 'connect', problem: /ECONNREFUSED/ });
});

t.test('an endpoint that accepts and never answers is given up within 10 s', async (t) => {
  await save({ ...s3.settings, storage_s3_endpoint: await startSilentEndpoint(t) });
  const started = Date.now();
  const r = await probe();
  const took = Date.now() - started;
  t.equal(r.status, 200);
  t.match(r.body.data, { ok: false, step: 'connect', problem: /no answer within \d+ s/ });
  t.ok(took < 10_000, `answered after ${took} ms`);
  t.ok(r.body.data.elapsed_ms < 10_000);
});
