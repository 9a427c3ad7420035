// Covers a server start with a stored file writer into /proc (saved before such directories were refused): the server starts within seconds, the instance is in error with the reason, plugin_failed is raised, and other configurations are still created and started.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { migrate, openDatabase } from '../../storage/db.js';
import { createTestDatabase, sql } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const db = await createTestDatabase();
const payloads = await mkdtemp(path.join(os.tmpdir(), 'pier-stuck-'));
t.teardown(async () => {
  await db.drop();
  await rm(payloads, { recursive: true, force: true });
});
const orm = await openDatabase(db.url, { poolMax: 1 });
await migrate(orm);
await orm.close();
await sql(db.url, 'update settings set storage_local_directory = $1', [path.join(payloads, 'store')]);
await sql(
  db.url,
  `insert into plugin_config (type, name, enabled, settings)
   values ('file-writer', 'relbad', true, '{"directory": "/proc/relbad"}')`,
);

/** The server, or a failure of its own after `ms`: a start that never ends cannot hang the file. */
async function started(ms: number): Promise<TestServer> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the server did not start within ${ms} ms`)), ms);
  });
  return Promise.race([startTestServer(t, { db }), late]).finally(() => clearTimeout(timer));
}

const began = Date.now();
const server = await started(20_000);
t.ok(Date.now() - began < 20_000, `the server started (${Date.now() - began} ms)`);

t.test('the stored instance is in error with the reason, and plugin_failed is raised', async (t) => {
  const list = await server.call('GET', '/api/v1/services');
  const relbad = (list.body.data as { name: string; status: string; error: string }[]).find(
    (s) => s.name === 'relbad',
  );
  t.match(relbad, {
    status: 'error',
    error: 'the configuration is not valid: directory: Must not be on /proc, a kernel pseudo-filesystem',
  });
  const alerts = await sql(db.url, "select code from alert where subject_name = 'relbad'");
  t.same(alerts, [{ code: 'plugin_failed' }]);
});

t.test('other configurations are created and started as usual', async (t) => {
  const made = await server.call('POST', '/api/v1/plugins/configs?type=file-writer', {
    body: { name: 'fine', directory: path.join(payloads, 'out') },
  });
  t.equal(made.status, 201, made.raw);
  t.match(made.body.data.service, { status: 'running' });
});
