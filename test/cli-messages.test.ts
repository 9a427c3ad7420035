// Covers `pier messages list|show|redeliver`: finding a message by the beginning of
// its file name, direction and target, showing it as the API does, and redelivering it from the
// shell while the server runs (audited, with the user in its history).
import t from 'tap';
import { sql } from './helpers/database.js';
import { must, parties, runningOn, tempDir, upload, waitForMessage, finished } from './helpers/flow.js';
import { pierShell } from './helpers/pier-shell.js';
import { startTestServer } from './helpers/server.js';
import { cliActor } from '../cli/session.js';

const { db, dataDir, pier } = await pierShell(t);

const server = await startTestServer(t, { db, env: { PIER_DATA_DIR: dataDir } });
const out = await tempDir(t);
await parties(server);
await must(server, '/plugins/configs?type=file-writer', { name: 'out', directory: out });
await runningOn(server, 'file-writer', 'out');

t.test('messages: list with q, direction and target, show, redeliver (audited)', async (t) => {
  const sent = await upload(
    server,
    { from: 'acme', to: 'globex', target: 'out' },
    { name: 'Order-77.csv', content: 'a;b\n' },
  );
  t.equal(sent.status, 201, JSON.stringify(sent.body));
  const id = sent.body.data.id as string;
  await waitForMessage(server, id, finished, 'the upload delivered');

  const list = await pier([
    'messages',
    'list',
    '--q',
    'order-7',
    '--direction',
    'outbound',
    '--target',
    'out',
  ]);
  t.equal(list.code, 0, list.stderr);
  t.match(
    list.stdout,
    new RegExp(`^${id}\\t\\d{4}-[^\\t]+\\toutbound\\tDelivered\\tacme\\tglobex\\tOrder-77.csv$`, 'm'),
  );
  t.equal(
    list.stdout.split('\n')[0],
    'ID\tCREATED\tDIRECTION\tSTATUS\tFROM\tTO\tFILE NAME',
    'a header row first',
  );
  const bare = await pier(['messages', 'list', '--q', 'order-7', '--no-header']);
  t.match(bare.stdout.split('\n')[0], new RegExp(`^${id}\\t`), '--no-header: the rows alone');
  t.equal(
    (await pier(['messages', 'list', '--q', 'rder-77'])).stdout,
    'No messages.\n',
    'the beginning of the name',
  );
  const bad = await pier(['messages', 'list', '--direction', 'sideways']);
  t.equal(bad.code, 1);
  t.equal(bad.stderr, 'pier: Validation failed: direction: Must be one of: inbound, outbound\n');

  const shown = await pier(['messages', 'show', id]);
  t.equal(shown.code, 0, shown.stderr);
  const message = JSON.parse(shown.stdout);
  t.match(message, { id, file_name: 'Order-77.csv', deliveries: [{ target: 'out', state: 'delivered' }] });

  const again = await pier(['messages', 'redeliver', id]);
  t.equal(again.code, 0, again.stderr);
  t.match(again.stdout, /^Delivery \d+ to out is (queued|delivering|delivered)\.\n$/);
  const redelivered = await waitForMessage(
    server,
    id,
    (m) => m.history.some((h: { kind: string }) => h.kind === 'redeliver_requested') && finished(m),
    'the redelivery done',
    60_000,
  );
  t.match(
    redelivered.history.find((h: { kind: string }) => h.kind === 'redeliver_requested').text,
    new RegExp(`by ${cliActor()}`),
  );
  const audit = await sql<{ action: string; actor: string; record_id: string }>(
    db.url,
    "select action, actor, record_id from audit_event where kind = 'message' order by id",
  );
  t.match(audit, [
    { action: 'upload', actor: /^sa:tester/, record_id: id },
    { action: 'redeliver', actor: cliActor(), record_id: id },
  ]);
  t.equal(audit.length, 2);
  const missing = await pier(['messages', 'redeliver', id, '--target', 'elsewhere']);
  t.equal(missing.code, 1);
  t.match(missing.stderr, /has no such delivery; its deliveries: \d+ \(out, /);
});
