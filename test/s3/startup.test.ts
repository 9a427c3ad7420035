// Covers the start of a process on S3 (docs/api/settings.md): `pier serve` whose saved bucket is missing, or whose endpoint refuses connections, stops before serving with exit code 1 and a message naming the storage, the step and the problem; the same settings on a reachable bucket start and report storage_in_use exactly.
import { spawn } from 'node:child_process';
import path from 'node:path';
import t from 'tap';
import { createMigratedDatabase, sql } from '../helpers/database.js';
import { collectOutput } from '../helpers/child-output.js';
import { tempDir } from '../helpers/flow.js';
import { refusedEndpoint, startS3 } from '../helpers/s3.js';
import { serveEnv, spawnPier } from '../helpers/process.js';

const root = path.resolve(import.meta.dirname, '../..');
const s3 = await startS3(t);
const db = await createMigratedDatabase();
t.teardown(() => db.drop());
const dir = await tempDir(t, 'pier-s3-start-');

async function saveStorage(values: Record<string, string>) {
  for (const [column, value] of Object.entries(values)) {
    await sql(db.url, `update settings set ${column} = $1`, [value]);
  }
}

/** Runs `pier serve` to its end; it must not get as far as serving. */
function serveUntilExit(): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, 'bin/pier-sources.js'), 'serve', '--dev'], {
      cwd: dir,
      env: serveEnv(db.url, path.join(dir, 'data'), {
        AWS_ACCESS_KEY_ID: 'S3RVER',
        AWS_SECRET_ACCESS_KEY: 'startup-test-secret',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = collectOutput(child);
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, ...output });
    });
  });
}

/** The message of the one fatal JSON log line a failed start writes (level 60). */
function fatalOf(stdout: string): string {
  const fatal = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string })
    .find((entry) => entry.level === 60);
  return fatal?.msg ?? '';
}

t.test('a bucket that does not exist stops the process at the connect step', async (t) => {
  await saveStorage({ ...s3.settings, storage_s3_bucket: 'no-such-bucket' });
  const run = await serveUntilExit();
  t.equal(run.code, 1);
  t.match(
    fatalOf(run.stdout),
    `Payload storage (S3 bucket no-such-bucket (region us-east-1) at ${s3.endpoint}) cannot be used: the connect step failed: NoSuchBucket: bucket no-such-bucket does not exist`,
  );
  t.notMatch(run.stdout, /pier is serving/);
  t.notMatch(run.stderr + run.stdout, /startup-test-secret/);
});

t.test('an endpoint that refuses connections stops the process and says so', async (t) => {
  await saveStorage({ ...s3.settings, storage_s3_endpoint: await refusedEndpoint() });
  const run = await serveUntilExit();
  t.equal(run.code, 1);
  t.match(fatalOf(run.stdout), /cannot be used: the connect step failed: .*ECONNREFUSED/);
});

t.test('a reachable bucket starts, and storage_in_use is the saved S3 storage', async (t) => {
  await saveStorage({ ...s3.settings });
  const pier = await spawnPier(t, {
    databaseUrl: db.url,
    dataDir: path.join(dir, 'data'),
    cwd: dir,
    env: { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'startup-test-secret' },
  });
  const settings = await pier.call('GET', '/settings');
  t.same(settings.body.data.storage_in_use, {
    storage_backend: 's3',
    storage_local_directory: './payloads',
    storage_s3_bucket: s3.bucket,
    storage_s3_region: s3.region,
    storage_s3_endpoint: s3.endpoint,
  });
  t.equal(settings.body.data.restart_needed, false);
  t.same(await s3.keys(), [], 'the start probe left nothing in the bucket');
  await pier.kill('SIGTERM');
});
