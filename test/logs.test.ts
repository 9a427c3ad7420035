// Covers what `pier serve` logs: one info line per API request (method, route, status,
// duration, user; never the body), per accepted message and per ended delivery, operator actions
// in the audit log with the user, and a SIGTERM that stops it with no error logged.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { createTestDatabase, sql } from './helpers/database.js';
import { collectOutput } from './helpers/child-output.js';
import { form } from './helpers/flow.js';
import { serveEnv } from './helpers/process.js';
import { waitFor } from './helpers/wait.js';

const root = path.resolve(import.meta.dirname, '..');
const db = await createTestDatabase();
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pier-logs-'));
t.teardown(async () => {
  await db.drop();
  await rm(dataDir, { recursive: true, force: true });
});

interface Line {
  level: number;
  msg: string;
  [key: string]: unknown;
}

const child = spawn(process.execPath, [path.join(root, 'bin/pier-sources.js'), 'serve', '--dev'], {
  cwd: dataDir,
  env: serveEnv(db.url, dataDir),
  stdio: ['ignore', 'pipe', 'pipe'],
});
const output = collectOutput(child);
const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
t.teardown(() => {
  if (child.exitCode === null) child.kill('SIGKILL');
});
const lines = (): Line[] =>
  output.stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Line);

const serving = await waitFor(
  async () => lines().find((l) => l.msg === 'pier is serving'),
  'pier serves',
  120_000,
);
const base = serving.url as string;

async function call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const r = await fetch(`${base}/api/v1${url}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as { data: Record<string, unknown> } };
}

t.test('a request, a message by hand, its delivery and a redispatch are logged and audited', async (t) => {
  t.equal((await call('POST', '/organizations', { name: 'acme' })).status, 201);
  t.equal((await call('POST', '/partners', { name: 'globex' })).status, 201);
  const out = path.join(dataDir, 'out');
  t.equal(
    (await call('POST', '/plugins/configs?type=file-writer', { name: 'out', directory: out, enabled: false }))
      .status,
    201,
  );
  t.equal((await call('POST', '/services/file-writer/out/start', {})).status, 200);
  const upload = form(
    { from: 'acme', to: 'globex', target: 'out' },
    { name: 'order.csv', content: 'secret-payload' },
  );
  const sent = await fetch(`${base}/api/v1/messages`, {
    method: 'POST',
    headers: upload.headers,
    body: new Uint8Array(upload.payload),
  });
  t.equal(sent.status, 201);
  const id = ((await sent.json()) as { data: { id: string } }).data.id;

  const delivered = await waitFor(
    async () => lines().find((l) => l.msg === 'delivery delivered' && l.message_id === id),
    'the delivery is logged',
    60_000,
  );
  t.match(delivered, {
    level: 30,
    target: 'out',
    state: 'delivered',
    attempts: Number,
    elapsed_ms: Number,
    last_error: '',
  });
  t.match(
    lines().find((l) => l.msg === 'message accepted' && l.message_id === id),
    { level: 30, source: 'api/api', from: 'acme', to: 'globex', file_name: 'order.csv', size_bytes: 14 },
    'the acceptance is logged',
  );
  t.equal((await call('POST', `/messages/${id}/redispatch`, {})).status, 200);

  const requests = lines().filter((l) => l.msg === 'request');
  t.match(
    requests.find((l) => l.method === 'POST' && l.route === '/api/v1/organizations'),
    { level: 30, status: 201, duration_ms: Number, user: 'developer' },
  );
  // A request's line is written when its answer has gone, so it may come just after the answer.
  const redispatched = await waitFor(
    () => lines().find((l) => l.msg === 'request' && l.route === '/api/v1/messages/:id/redispatch'),
    'the redispatch request is logged',
  );
  t.match(redispatched, { status: 200, user: 'developer' });
  t.notMatch(output.stdout, /secret-payload/, 'never a body');

  const audit = await sql<{ action: string; actor: string; kind: string; record_name: string }>(
    db.url,
    "select action, actor, kind, record_name from audit_event where action in ('start', 'upload', 'redispatch') order by id",
  );
  t.same(audit, [
    { action: 'start', actor: 'developer', kind: 'service', record_name: 'file-writer/out' },
    { action: 'upload', actor: 'developer', kind: 'message', record_name: 'order.csv' },
    { action: 'redispatch', actor: 'developer', kind: 'message', record_name: 'order.csv' },
  ]);
  const filtered = await call('GET', '/audit?action=redispatch');
  t.equal(filtered.status, 200, 'the audit list filters by the new actions');
});

t.test('SIGTERM stops pier in order: nothing logged at warn or above, nothing on stderr', async (t) => {
  const before = lines().length;
  child.kill('SIGTERM');
  t.equal(await exited, 0);
  // The answer to the last request is logged when it has gone, which may be after this point.
  const after = lines()
    .slice(before)
    .filter((l) => l.msg !== 'request');
  t.equal(after[0]?.msg, 'pier is stopping: work in hand finishes, new work is refused');
  t.equal(after.at(-1)?.msg, 'pier stopped');
  t.same(
    lines().filter((l) => l.level >= 40),
    [],
    'no warning or error in the whole run',
  );
  t.equal(output.stderr, '');
});
