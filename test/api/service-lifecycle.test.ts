// Covers plugin instances as an operator expects them: an enabled configuration starts at once, a deleted one stops and leaves /services, an update says restart_needed; service actions followed by every process of a cluster and kept across a restart.
import path from 'node:path';
import t from 'tap';
import { must, tempDir } from '../helpers/flow.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const a = await startTestServer(t);
const dir = await tempDir(t);
await must(a, '/organizations', { name: 'acme' });

interface Listed {
  type: string;
  name: string;
  status: string;
  restart_needed: boolean;
  desired?: string;
  processes?: { node: number; status: string }[];
}
async function listed(server: TestServer, name: string): Promise<Listed | undefined> {
  const list = await server.call('GET', '/api/v1/services');
  return (list.body.data as Listed[]).find((s) => s.name === name);
}
const action = (server: TestServer, name: string, act: string) =>
  server.call('POST', `/api/v1/services/file-writer/${name}/${act}`, { body: {} });
const update = (server: TestServer, name: string, body: unknown) =>
  server.call('PUT', `/api/v1/plugins/configs/file-writer/${name}`, { body });
/** Waits until the server lists the instance in the status given (another process follows within seconds). */
const becomes = (server: TestServer, name: string, status: string) =>
  waitFor(
    async () => ((await listed(server, name))?.status === status ? true : undefined),
    `${name} ${status}`,
    30_000,
    100,
  );

t.test('a configuration created enabled starts at once; disabled stays stopped', async (t) => {
  const made = await must(a, '/plugins/configs?type=file-writer', {
    name: 'w1',
    directory: path.join(dir, 'w1'),
  });
  t.match(made.body.data.service, {
    type: 'file-writer',
    name: 'w1',
    status: 'running',
    restart_needed: false,
  });
  t.match(await listed(a, 'w1'), { status: 'running', desired: 'running' });
  const off = await must(a, '/plugins/configs?type=file-writer', {
    name: 'w2',
    directory: path.join(dir, 'w2'),
    enabled: false,
  });
  t.match(off.body.data.service, { status: 'stopped' });
  t.match(await listed(a, 'w2'), { status: 'stopped', desired: 'stopped' });
  const poster = await must(a, '/plugins/configs?type=notification-webhook', {
    name: 'hook',
    url: 'https://example.com/hook',
  });
  t.match(
    poster.body.data.service,
    { type: 'notification-webhook', name: 'hook', status: 'running' },
    'a notifier starts at once like any other instance',
  );
});

t.test('an update of a running instance says a restart applies it', async (t) => {
  const changed = await update(a, 'w1', { if_exists: 'rename' });
  t.equal(changed.status, 200, changed.raw);
  t.equal(changed.body.data.restart_needed, true, 'in the PUT answer');
  t.match(await listed(a, 'w1'), { status: 'running', restart_needed: true }, 'and in /services');
  const restarted = await action(a, 'w1', 'restart');
  t.match(restarted.body.data, { status: 'running', restart_needed: false });
  t.match(await listed(a, 'w1'), { restart_needed: false });
  const unchanged = await update(a, 'w1', { if_exists: 'rename' });
  t.equal(unchanged.body.data.restart_needed, false, 'nothing changed: nothing to apply');
  const stopped = await update(a, 'w2', { if_exists: 'rename' });
  t.equal(stopped.body.data.restart_needed, false, 'a stopped instance reads it when it starts');
});

t.test('deleting a configuration stops its instance and removes it from /services', async (t) => {
  const removed = await a.call('DELETE', '/api/v1/plugins/configs/file-writer/w1', { body: {} });
  t.equal(removed.status, 204, removed.raw);
  t.equal(await listed(a, 'w1'), undefined, 'gone at once');
  const stats = await a.call('GET', '/api/v1/stats');
  t.notOk('file-writer:w1' in stats.body.data.plugin_status);
});

t.test('service actions are followed by every process and kept across a restart', async (t) => {
  let b = await startTestServer(t, { db: a.db });
  await must(a, '/plugins/configs?type=file-writer', { name: 'shared', directory: path.join(dir, 'shared') });
  await becomes(b, 'shared', 'running');
  t.pass('a configuration created in one process starts in the other');

  const stopped = await action(a, 'shared', 'stop');
  t.match(stopped.body.data, { status: 'stopped', desired: 'stopped' });
  await becomes(b, 'shared', 'stopped');
  t.pass('a stop in one process stops the instance in the other');
  const both = await waitFor(
    async () => {
      const entry = await listed(a, 'shared');
      return entry?.processes?.length === 2 && entry.processes.every((p) => p.status === 'stopped')
        ? entry
        : undefined;
    },
    'both processes reported',
    30_000,
    100,
  );
  t.equal(new Set(both.processes!.map((p) => p.node)).size, 2, 'one state per process');
  t.match((await a.call('GET', '/api/v1/stats')).body.data.plugin_status, {
    'file-writer:shared': 'Stopped',
  });

  await b.close();
  b = await startTestServer(t, { db: a.db });
  t.match(
    await listed(b, 'shared'),
    { status: 'stopped', desired: 'stopped' },
    'still stopped after a restart',
  );

  const started = await action(b, 'shared', 'start');
  t.match(started.body.data, { status: 'running', desired: 'running' });
  await becomes(a, 'shared', 'running');
  t.pass('a start in the other process starts it here too');

  const removed = await a.call('DELETE', '/api/v1/plugins/configs/file-writer/shared', { body: {} });
  t.equal(removed.status, 204);
  await waitFor(
    async () => ((await listed(b, 'shared')) === undefined ? true : undefined),
    'gone in b',
    30_000,
    100,
  );
  t.pass('a delete in one process stops and removes the instance in the other');
  await b.close();
});

t.test('changing enabled replaces the last action', async (t) => {
  await must(a, '/plugins/configs?type=file-writer', { name: 'w3', directory: path.join(dir, 'w3') });
  await action(a, 'w3', 'stop');
  const enabled = await update(a, 'w3', { enabled: false });
  t.equal(enabled.status, 200);
  t.match(await listed(a, 'w3'), { desired: 'stopped' });
  await update(a, 'w3', { enabled: true });
  t.match(await listed(a, 'w3'), { desired: 'running' }, 'enabled again: wanted running at the next start');
});
