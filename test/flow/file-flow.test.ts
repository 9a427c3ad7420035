// Covers file-poller → route → file-writer end to end: delivery, processed files, refused and unrouted files, routes applying without a restart, the messages API, payload download, stats.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { fileFlow, must, parties, tempDir, waitForMessage, waitForMessages } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const server = await startTestServer(t);
const dir = await tempDir(t);
const inbox = path.join(dir, 'in');
const done = path.join(dir, 'done');
const outbox = path.join(dir, 'out');
await parties(server);
await mkdir(path.join(inbox, 'globex'), { recursive: true });
// The routes are the tests' own.
await fileFlow(server, dir, { poller: { polling_interval: 1 }, route: false });

t.test('a file goes from the poller through a route to the writer', async (t) => {
  await must(server, '/routes', {
    name: 'to-globex',
    source_plugin: 'in',
    from: 'acme',
    to: 'globex',
    target_plugin: 'out',
  });
  const content = "UNA:+.? 'UNB+UNOC:3+ACME+GLOBEX'";
  await writeFile(path.join(inbox, 'globex', 'order-1.edi'), content);
  const [listed] = await waitForMessages(server, 'status=Delivered', (l) => l.length === 1, 'delivery');
  t.match(listed, {
    status: 'Delivered',
    stage: 'settled',
    direction: 'outbound',
    from: 'acme',
    to: 'globex',
    file_name: 'order-1.edi',
    source_type: 'file-poller',
    source_name: 'in',
    refusal: null,
    protocols: {},
  });
  t.equal(listed.deliveries.length, 1);
  t.match(listed.deliveries[0], {
    target: 'out',
    state: 'delivered',
    attempts: 1,
    last_error: '',
    next_attempt_at: null,
  });
  t.ok(listed.deliveries[0].finished_at);
  t.same(Object.keys(listed.payloads), ['unpacked']);
  t.equal(listed.payloads.unpacked.size_bytes, content.length);
  t.same(
    listed.history.map(
      (h: { kind: string; new_status?: string; new_state?: string }) =>
        `${h.kind}:${h.new_status ?? h.new_state}`,
    ),
    [
      'status_changed:Received',
      'delivery_changed:queued',
      'status_changed:InProgress',
      'delivery_changed:delivering',
      'delivery_changed:delivered',
      'status_changed:Delivered',
    ],
    'history lines, oldest first',
  );
  t.match(listed.history[3], { delivery_id: listed.deliveries[0].id, target: 'out', old_state: 'queued' });

  t.equal(
    await readFile(path.join(outbox, 'acme', 'order-1.edi'), 'utf8'),
    content,
    'written under {from}/{filename}',
  );
  t.same(await readdir(path.join(inbox, 'globex')), [], 'taken from the poller directory');
  t.equal(
    await readFile(path.join(done, 'globex', 'order-1.edi'), 'utf8'),
    content,
    'moved to processed_directory',
  );
  t.same(
    (await readdir(path.join(outbox, 'acme'))).filter((f) => f.startsWith('.')),
    [],
    'no temporary files left behind',
  );

  // The acknowledgement sweep settles the interchange's acknowledgement ("pending" until it looks)
  // on its own schedule: the list and the GET are compared once it has.
  const [settled] = await waitForMessages(
    server,
    'status=Delivered',
    (l) => l[0]?.protocols.edi?.acknowledgement.status !== 'pending',
    'the acknowledgement sweep',
  );
  const got = await server.call('GET', `/api/v1/messages/${listed.id}`);
  t.same(got.body.data, settled, 'an item of the list has the shape of its own GET');
  const payload = await server.call('GET', `/api/v1/messages/${listed.id}/payload`);
  t.equal(payload.status, 200);
  t.equal(payload.headers['content-type'], 'application/octet-stream');
  t.match(payload.headers['content-disposition'], /filename="order-1.edi"/);
  t.equal(payload.raw, content);
});

t.test('a file with no route is NotRouted; a saved route applies at the next dispatch', async (t) => {
  await mkdir(path.join(inbox, 'initech'), { recursive: true });
  await must(server, '/partners', { name: 'initech' });
  await writeFile(path.join(inbox, 'initech', 'invoice.xml'), '<invoice/>');
  const [m] = await waitForMessages(server, 'to=initech', (l) => l[0]?.status === 'NotRouted', 'NotRouted');
  t.match(m, { stage: 'settled', deliveries: [] });
  await must(server, '/routes', { source_plugin: 'in', from: '*', to: 'initech', target_plugin: 'out' });
  const again = await must(server, `/messages/${m.id}/redispatch`);
  t.equal(again.body.data.deliveries.length, 1, 'the new route made a delivery, without a restart');
  const delivered = await waitForMessage(server, m.id, (x) => x.status === 'Delivered', 'delivered');
  t.ok(
    delivered.history.some(
      (h: { kind: string; text?: string }) =>
        h.kind === 'redispatch_requested' && h.text === 'Redispatch requested by sa:tester',
    ),
  );
  t.equal(await readFile(path.join(outbox, 'acme', 'invoice.xml'), 'utf8'), '<invoice/>');
});

t.test('files that cannot be routed or read as parties are not lost', async (t) => {
  await writeFile(path.join(inbox, 'top-level.txt'), 'no party directory');
  await mkdir(path.join(inbox, 'nobody'), { recursive: true });
  await writeFile(path.join(inbox, 'nobody', 'x.txt'), 'unknown partner');
  const refused = await waitForMessages(server, 'status=Refused', (l) => l.length === 2, 'two refused files');
  const byName = Object.fromEntries(refused.map((m) => [m.file_name, m]));
  t.match(byName['top-level.txt'].refusal, /the path top-level.txt does not match \{to\}\/\{filename\}/);
  t.match(byName['x.txt'].refusal, /the receiver is not an organization or partner/);
  for (const m of refused) {
    t.equal(m.stage, 'settled');
    const bytes = await server.call('GET', `/api/v1/messages/${m.id}/payload?stage=unpacked`);
    t.equal(bytes.status, 200, 'the payload is kept');
  }
  t.equal(
    await readFile(path.join(done, 'top-level.txt'), 'utf8'),
    'no party directory',
    'moved to processed',
  );
  t.equal(await readFile(path.join(done, 'nobody', 'x.txt'), 'utf8'), 'unknown partner');
});

t.test('files in the making are not taken', async (t) => {
  await writeFile(path.join(inbox, 'globex', '.hidden.edi'), 'partial');
  await writeFile(path.join(inbox, 'globex', 'big.edi.part'), 'partial');
  await writeFile(path.join(inbox, 'globex', 'noextension'), 'no dot: does not match *.*');
  await new Promise((r) => setTimeout(r, 2500));
  t.same((await readdir(path.join(inbox, 'globex'))).sort(), ['.hidden.edi', 'big.edi.part', 'noextension']);
});

t.test('payload download rules and the message list filters', async (t) => {
  const [m] = (await server.call('GET', '/api/v1/messages?status=Delivered&from=acme&to=globex')).body.data
    .messages;
  const badStage = await server.call('GET', `/api/v1/messages/${m.id}/payload?stage=body`);
  t.equal(badStage.status, 400);
  t.same(badStage.body.error.details, {
    stage: 'Must be one of: unpacked, message, received, headers, receipt',
  });
  const missing = await server.call('GET', `/api/v1/messages/${m.id}/payload?stage=receipt`);
  t.equal(missing.status, 404);
  t.same(missing.body.error, { code: 'NOT_FOUND', message: `Message ${m.id} has no receipt payload` });
  const unknown = await server.call('GET', '/api/v1/messages/00000000-0000-4000-8000-000000000000');
  t.same(unknown.body.error, { code: 'NOT_FOUND', message: 'Message not found' });
  const notUuid = await server.call('GET', '/api/v1/messages/42');
  t.equal(notUuid.status, 400);
  const badStatus = await server.call('GET', '/api/v1/messages?status=Lost');
  t.equal(badStatus.status, 400);
  t.ok(badStatus.body.error.details.status);
  const badSince = await server.call('GET', '/api/v1/messages?since=yesterday');
  t.ok(badSince.body.error.details.since);
  const future = await server.call(
    'GET',
    `/api/v1/messages?since=${new Date(Date.now() + 60_000).toISOString()}`,
  );
  t.equal(future.body.data.total, 0);
  const page = await server.call('GET', '/api/v1/messages?limit=1');
  t.match(page.body.data, { total: 4, limit: 1, offset: 0 });
  t.equal(page.body.data.messages.length, 1);
  t.equal((await server.call('GET', '/api/v1/messages')).body.data.limit, 50, 'default limit 50');
});

t.test('stats count the flow and show the instances', async (t) => {
  const stats = await server.call('GET', '/api/v1/stats');
  t.match(stats.body.data, {
    messages_last_24h: 4,
    sent_last_24h: 4,
    received_last_24h: 0,
    messages_last_7d: 4,
    in_flight_messages: 0,
    retrying_messages: 0,
    failed_last_24h: 0,
    system_status: 'Healthy',
    plugin_status: { 'file-poller:in': 'Running', 'file-writer:out': 'Running' },
  });
  await waitFor(
    async () => (await server.call('GET', '/api/v1/services')).body.data.length === 3,
    'services',
  );
});
