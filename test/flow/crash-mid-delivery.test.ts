// Covers a worker that crashes mid-delivery: the instance goes to error with plugin_failed, the delivery is taken back, and it is delivered after the instance restarts; the process and other instances carry on.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { workerEntries } from '../../actors/index.js';
import { sql } from '../helpers/database.js';
import { must, parties, tempDir, upload, waitForMessage } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const server = await startTestServer(t, {
  runtime: {
    entries: {
      ...workerEntries,
      'file-writer': new URL('../../actors/file-writer/fixtures/crash-once.ts', import.meta.url),
    },
  },
});
const dir = await tempDir(t);
await parties(server);
const out = path.join(dir, 'out');
await mkdir(out);
await must(server, '/plugins/configs?type=file-writer', { name: 'fragile', directory: out });
await must(server, '/plugins/configs?type=http-poster', { name: 'bystander', url: 'http://127.0.0.1:9/' });

t.test('crash, error and alert, delivery taken back, delivered after a restart', async (t) => {
  const made = await upload(
    server,
    { from: 'acme', to: 'globex', target: 'fragile' },
    { name: 'c.txt', content: 'crash' },
  );
  const failed = await waitFor(async () => {
    const list = (await server.call('GET', '/api/v1/services')).body.data as {
      name: string;
      status: string;
      error: string;
    }[];
    const entry = list.find((s) => s.name === 'fragile');
    return entry?.status === 'error' && entry;
  }, 'the instance in error');
  t.equal(failed.error, 'the writer broke in the middle of a delivery');
  // The status turns to error first; the alert follows once the held delivery is given back.
  const alerts = await waitFor(async () => {
    const rows = await sql<{ summary: string }>(
      server.db.url,
      "select summary from alert where code = 'plugin_failed' and subject_name = 'fragile'",
    );
    return rows.length > 0 && rows;
  }, 'the plugin_failed alert');
  t.equal(alerts.length, 1);
  t.match(alerts[0]!.summary, /file-writer fragile failed: the writer broke/);

  const waiting = await waitForMessage(
    server,
    made.body.data.id,
    (m) => m.deliveries[0].state === 'queued',
    'taken back',
  );
  t.match(waiting.history.at(-1), {
    kind: 'delivery_changed',
    old_state: 'delivering',
    new_state: 'queued',
    text: 'Taken back: the instance failed: the writer broke in the middle of a delivery',
  });
  t.equal(waiting.status, 'InProgress');

  const services = (await server.call('GET', '/api/v1/services')).body.data as {
    name: string;
    status: string;
  }[];
  t.equal(services.find((s) => s.name === 'bystander')?.status, 'running', 'the other instance carries on');
  t.equal((await server.call('GET', '/health')).status, 200, 'the process carries on');

  const restarted = await must(server, '/services/file-writer/fragile/restart');
  t.equal(restarted.body.data.status, 'running');
  const delivered = await waitForMessage(
    server,
    made.body.data.id,
    (m) => m.status === 'Delivered',
    'delivered',
  );
  t.equal(delivered.deliveries[0].attempts, 2, 'the crashed attempt counts');
  t.equal(await readFile(path.join(out, 'acme', 'c.txt'), 'utf8'), 'crash');
});
