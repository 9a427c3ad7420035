// Covers /services (docs/api/services.md, docs/api/lifecycles.md#service-instance-status): the list with the API server, start/stop/restart, 403/404/400/409, a failed start (error, plugin_failed alert, 500), enabled instances started with the server.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { sql } from '../helpers/database.js';
import { must, parkedWriter, tempDir } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);
const dir = await tempDir(t);
await must(server, '/organizations', { name: 'acme' });
// Created disabled: they stay stopped until started (an enabled one starts at once).
await parkedWriter(server, 'out', path.join(dir, 'out'));
await must(server, '/plugins/configs?type=file-poller', {
  name: 'broken',
  enabled: false,
  base_directory: path.join(dir, 'does-not-exist'),
  processed_directory: path.join(dir, 'done'),
  from: 'acme',
});
await must(server, '/plugins/configs?type=as2-sender', { name: 'as2-out', enabled: false });
const action = (type: string, name: string, act: string) =>
  server.call('POST', `/api/v1/services/${type}/${name}/${act}`, { body: {} });

t.test('the list holds the API server and every instance this process runs', async (t) => {
  const list = await server.call('GET', '/api/v1/services');
  t.equal(list.status, 200);
  t.match(list.body.data[0], {
    type: 'api-server',
    name: 'api',
    status: 'running',
    controllable: false,
    actions: [],
    error: null,
  });
  t.match(
    list.body.data
      .slice(1)
      .map((s: { type: string; name: string; status: string }) => `${s.type}/${s.name}:${s.status}`),
    ['as2-sender/as2-out:stopped', 'file-poller/broken:stopped', 'file-writer/out:stopped'],
    'created disabled: stopped until started',
  );
});

t.test('start, stop, restart wait for completion and answer the new state', async (t) => {
  const started = await action('file-writer', 'out', 'start');
  t.equal(started.status, 200);
  t.match(started.body.data, {
    type: 'file-writer',
    name: 'out',
    status: 'running',
    controllable: true,
    actions: ['stop', 'restart'],
    error: null,
  });
  t.ok(Date.parse(started.body.data.state_since) > 0);
  const again = await action('file-writer', 'out', 'start');
  t.equal(again.status, 409);
  t.same(again.body.error, {
    code: 'INVALID_STATE',
    message: 'Cannot start an instance that is running',
    details: { status: 'running', actions: ['stop', 'restart'] },
  });
  const restarted = await action('file-writer', 'out', 'restart');
  t.match(restarted.body.data, { status: 'running' });
  const stopped = await action('file-writer', 'out', 'stop');
  t.match(stopped.body.data, { status: 'stopped', actions: ['start'] });
  const stopAgain = await action('file-writer', 'out', 'stop');
  t.equal(stopAgain.status, 409);
  const restartStopped = await action('file-writer', 'out', 'restart');
  t.equal(restartStopped.status, 409, 'restart needs running or error');
  t.same(
    await sql(server.db.url, "select id from alert where code = 'plugin_failed' and subject_name = 'out'"),
    [],
    'a stop raises no alert',
  );
});

t.test('a start that fails: error with the reason, plugin_failed, 500', async (t) => {
  const failed = await action('file-poller', 'broken', 'start');
  t.equal(failed.status, 500);
  t.equal(failed.body.error.code, 'START_FAILED');
  t.match(failed.body.error.message, /^base_directory .*does-not-exist cannot be read: ENOENT/);
  const list = await server.call('GET', '/api/v1/services');
  const entry = list.body.data.find((s: { name: string }) => s.name === 'broken');
  t.match(entry, { status: 'error', actions: ['start', 'restart'] });
  t.equal(entry.error, failed.body.error.message);
  const alerts = await sql(
    server.db.url,
    "select code, severity, instance, summary from alert where subject_name = 'broken'",
  );
  t.match(alerts, [{ code: 'plugin_failed', severity: 'critical', instance: 'file-poller:broken' }]);
  await mkdir(path.join(dir, 'does-not-exist'));
  const fixed = await action('file-poller', 'broken', 'restart');
  t.match(fixed.body.data, { status: 'running', error: null }, 'restart from error once the cause is gone');
  await action('file-poller', 'broken', 'stop');
  const stats = await server.call('GET', '/api/v1/stats');
  t.match(stats.body.data.plugin_status, {
    'file-poller:broken': 'Stopped',
    'file-writer:out': 'Stopped',
    'as2-sender:as2-out': 'Stopped',
  });
});

t.test('the API server, unknown instances and unknown actions', async (t) => {
  const self = await action('api-server', 'api', 'stop');
  t.equal(self.status, 403);
  t.same(self.body.error, {
    code: 'FORBIDDEN',
    message: 'The API server cannot be controlled through its own API',
  });
  t.equal((await action('api-server', 'api', 'explode')).status, 403, 'any action on it');
  const unknown = await action('file-writer', 'ghost', 'start');
  t.equal(unknown.status, 404);
  t.same(unknown.body.error, { code: 'NOT_FOUND', message: 'Service file-writer/ghost not found' });
  t.equal((await action('ftp', 'x', 'start')).status, 404);
  t.equal(
    (await action('notification-webhook', 'hook', 'start')).status,
    404,
    'a notifier that is not configured',
  );
  const badAction = await action('file-writer', 'out', 'pause');
  t.equal(badAction.status, 400);
  t.same(badAction.body.error.details, { action: 'Must be one of: start, stop, restart' });
  const noType = await server.call('POST', '/api/v1/services/file-writer/out/start', {
    headers: { 'content-type': 'text/plain' },
    payload: '',
  });
  t.equal(noType.status, 415, 'actions take the JSON content type');
});

t.test('enabled instances start with the server', async (t) => {
  const second = await startTestServer(t, {});
  await must(second, '/organizations', { name: 'acme' });
  const outDir = path.join(dir, 'second-out');
  await must(second, '/plugins/configs?type=file-writer', { name: 'w-on', directory: outDir });
  await must(second, '/plugins/configs?type=file-writer', {
    name: 'w-off',
    directory: outDir,
    enabled: false,
  });
  await second.close();
  // The same database again: a new process reads the configurations at start.
  const { startServer } = await import('../../api/server.js');
  const { readProcessOptions } = await import('../../api/process-options.js');
  const third = await startServer({
    options: readProcessOptions({
      DATABASE_URL: second.db.url,
      PIER_DATA_DIR: second.dataDir,
      HTTP_PORT: '0',
      PIER_SECRET_KEY: 'pier-test-secret-key',
    }),
    developerBuild: true,
    logger: false,
    listen: false,
  });
  t.teardown(() => third.close());
  const list = await third.app.inject({ method: 'GET', url: '/api/v1/services' });
  const statuses = Object.fromEntries(
    (JSON.parse(list.body).data as { name: string; status: string }[]).map((s) => [s.name, s.status]),
  );
  t.same(statuses, { api: 'running', 'w-off': 'stopped', 'w-on': 'running' });
});
