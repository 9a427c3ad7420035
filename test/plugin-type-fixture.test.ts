// Covers adding a plugin type by following docs/contributing.md alone: checksum-log, a target
// that lives in test/fixtures/plugin-type/checksum-log/, registered with registerPluginType,
// is created through the API with its defaults and its own rule, started by the supervisor,
// and delivers messages sent by hand, a small one (inline) and a large one (from the store):
// each appends the payload's SHA-256 and file name to its log.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { registerPluginType } from '../actors/index.js';
import { checksumLogType, logLine } from './fixtures/plugin-type/checksum-log/config.js';

// Before the API and the runtime are loaded: they read the registry when imported.
registerPluginType(
  checksumLogType,
  new URL('./fixtures/plugin-type/checksum-log/worker.ts', import.meta.url),
);
const { startTestServer } = await import('./helpers/server.js');
const { must, parties, tempDir, upload, waitForMessage } = await import('./helpers/flow.js');
const { waitFor } = await import('./helpers/wait.js');

const server = await startTestServer(t);
const dir = await tempDir(t);
const logFile = path.join(dir, 'logs', 'checksums.log');
await parties(server);
const sha256 = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');

t.test('registering a type twice is refused', async (t) => {
  t.throws(() => registerPluginType(checksumLogType, new URL(import.meta.url)), /already registered/);
});

t.test('the API creates an instance of the type with its defaults, and keeps its rule', async (t) => {
  const refused = await server.call('POST', '/api/v1/plugins/configs?type=checksum-log', {
    body: { name: 'sums', log_file: path.join(dir, 'checksums.txt') },
  });
  t.equal(refused.status, 400);
  t.match(refused.body.error, { code: 'INVALID_INPUT', details: { log_file: 'Must name a .log file' } });

  const made = await must(server, '/plugins/configs?type=checksum-log', { name: 'sums', log_file: logFile });
  t.equal(made.status, 201);
  t.match(made.body.data, {
    name: 'sums',
    log_file: logFile,
    max_concurrent_deliveries: 1,
    max_attempts: 10,
  });
});

t.test('the supervisor runs it', async (t) => {
  const running = await waitFor(async () => {
    const services = await server.call('GET', '/api/v1/services');
    const sums = (services.body.data as { type: string; name: string; status: string }[]).find(
      (s) => s.type === 'checksum-log' && s.name === 'sums',
    );
    return sums?.status === 'running' ? sums : undefined;
  }, 'checksum-log instance running');
  t.match(running, { type: 'checksum-log', name: 'sums', status: 'running' });
});

t.test('a message sent by hand to it is delivered: its checksum is logged', async (t) => {
  const small = 'UNA:+.? \nUNB+UNOC:3+ACME+GLOBEX\n';
  const large = Buffer.alloc(200 * 1024, 'EDI segment line\n');
  for (const [name, content] of [
    ['order.edi', small],
    ['invoice.edi', large],
  ] as const) {
    const sent = await upload(server, { from: 'acme', to: 'globex', target: 'sums' }, { name, content });
    t.equal(sent.status, 201, `${name} accepted`);
    const done = await waitForMessage(server, sent.body.data.id, (m) => m.status === 'Delivered', name);
    t.match(done.deliveries, [{ target: 'sums', state: 'delivered', attempts: 1, last_error: '' }]);
  }
  t.equal(
    await readFile(logFile, 'utf8'),
    logLine(sha256(small), 'order.edi') + logLine(sha256(large), 'invoice.edi'),
    'one line per delivery, in order',
  );
});
