// Covers POST /messages (a file sent by hand): delivery to a file writer, the form's rules, X-Requested-With, 415, 413 at 64 MiB, nothing left behind when refused.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { sql } from '../helpers/database.js';
import { form, must, parties, tempDir, upload, waitForMessage } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);
const dir = await tempDir(t);
await parties(server);
await must(server, '/organizations', { name: 'umbrella' });
await must(server, '/partners', { name: 'initech' });
await must(server, '/plugins/configs?type=file-writer', {
  name: 'out',
  directory: path.join(dir, 'out'),
  path_pattern: '{to}/{filename}',
});
await must(server, '/plugins/configs?type=file-writer', {
  name: 'archive',
  directory: path.join(dir, 'archive'),
});
await must(server, '/plugins/configs?type=file-poller', {
  name: 'in',
  base_directory: dir,
  processed_directory: path.join(path.dirname(dir), `${path.basename(dir)}-done`),
  from: 'acme',
});
await must(server, '/routes', { source_plugin: 'in', from: 'acme', to: 'globex', target_plugin: 'out' });
await must(server, '/routes', { source_plugin: 'in', from: 'acme', to: 'initech', target_plugin: 'out' });
await must(server, '/routes', { source_plugin: 'in', from: 'acme', to: 'initech', target_plugin: 'archive' });
const storeDir = path.join(server.dataDir, 'payloads');
/** Messages with stages in the store's directory, and payload rows (small stages are kept inline). */
const stored = async () => ({
  files: (await readdir(storeDir).catch(() => [])).length,
  rows: (await sql(server.db.url, 'select count(*)::int as n from payload'))[0]!.n as number,
});
const messageCount = async () =>
  (await sql(server.db.url, 'select count(*)::int as n from message'))[0]!.n as number;

t.test('a file sent by hand goes to the target the routes name', async (t) => {
  const made = await upload(
    server,
    { from: 'acme', to: 'globex' },
    { name: 'hand.csv', content: 'a;b;c\n1;2;3\n' },
  );
  t.equal(made.status, 201);
  t.match(made.body.data, {
    from: 'acme',
    to: 'globex',
    direction: 'outbound',
    file_name: 'hand.csv',
    source_type: 'api',
    payloads: { unpacked: { size_bytes: 12 } },
  });
  t.match(made.body.data.history[0], {
    kind: 'status_changed',
    new_status: 'Received',
    text: 'Sent by hand by sa:tester',
  });
  t.equal(made.body.data.deliveries.length, 1, 'dispatched before the answer');
  const done = await waitForMessage(server, made.body.data.id, (m) => m.status === 'Delivered', 'delivered');
  t.equal(done.deliveries[0].target, 'out');
  t.equal(await readFile(path.join(dir, 'out', 'globex', 'hand.csv'), 'utf8'), 'a;b;c\n1;2;3\n');
});

t.test('inbound, to a named target', async (t) => {
  const made = await upload(
    server,
    { from: 'globex', to: 'acme', target: 'out' },
    { name: 'in.txt', content: 'inbound' },
  );
  t.equal(made.status, 201);
  t.equal(made.body.data.direction, 'inbound');
  await waitForMessage(server, made.body.data.id, (m) => m.status === 'Delivered', 'delivered');
  t.equal(await readFile(path.join(dir, 'out', 'acme', 'in.txt'), 'utf8'), 'inbound');
});

t.test('the form is checked; a refused form stores nothing', async (t) => {
  const before = await stored();
  t.same(before, { files: 0, rows: 2 }, 'the two small files sent so far are kept inline');
  const messagesBefore = (await sql(server.db.url, 'select count(*)::int as n from message'))[0]!.n;
  const cases: [Record<string, string>, Record<string, string>][] = [
    [{ from: 'acme', to: 'umbrella' }, { to: 'One party must be an organization and the other a partner' }],
    [
      { from: 'globex', to: 'initech', target: 'out' },
      { to: 'One party must be an organization and the other a partner' },
    ],
    [{ from: 'acme', to: 'nobody' }, { to: 'No organization or partner is named nobody' }],
    [{ from: 'acme', to: 'globex', target: 'in' }, { target: 'in is a file-poller, not a target' }],
    [{ from: 'acme', to: 'globex', target: 'ghost' }, { target: 'No plugin instance is named ghost' }],
    [{ from: 'umbrella', to: 'globex' }, { target: 'No route goes from umbrella to globex; name a target' }],
    [
      { from: 'acme', to: 'initech' },
      { target: 'Routes from acme to initech name several targets (archive, out); name one' },
    ],
    [{ from: 'acme', to: 'globex', colour: 'red' }, { colour: 'Unknown property' }],
    [{ to: 'globex' }, { from: 'Required' }],
  ];
  for (const [fields, details] of cases) {
    const r = await upload(server, fields, { name: 'x.txt', content: 'x' });
    t.equal(r.status, 400, JSON.stringify(fields));
    t.same(
      r.body.error,
      { code: 'INVALID_INPUT', message: 'Validation failed', details },
      JSON.stringify(fields),
    );
  }
  const noFile = await upload(server, { from: 'acme', to: 'globex' });
  t.same(noFile.body.error.details, { file: 'Required' });
  t.same(await stored(), before, 'no payload left in the store or the database');
  t.equal(
    (await sql(server.db.url, 'select count(*)::int as n from message'))[0]!.n,
    messagesBefore,
    'no message',
  );
});

t.test('edge rules: X-Requested-With, Content-Type, size', async (t) => {
  const body = form({ from: 'acme', to: 'globex' }, { name: 'x.txt', content: 'x' });
  const noHeader = await server.call('POST', '/api/v1/messages', {
    payload: body.payload,
    headers: { 'content-type': body.headers['content-type']! },
  });
  t.equal(noHeader.status, 400);
  t.same(noHeader.body.error, {
    code: 'MISSING_HEADER',
    message: 'The X-Requested-With header is required for uploads',
  });
  // Uploads take multipart only; EDI as JSON has its own path (test/api/messages-send-json.test.ts).
  const messagesBefore = await messageCount();
  const json = await server.call('POST', '/api/v1/messages', {
    body: { from: 'acme', to: 'globex', target: 'out' },
    headers: { 'x-requested-with': 'test' },
  });
  t.equal(json.status, 415, 'JSON to the upload');
  t.same(json.body, {
    data: null,
    error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type must be multipart/form-data' },
  });
  t.equal(json.headers.accept, 'multipart/form-data');
  const text = await server.call('POST', '/api/v1/messages', {
    payload: 'a',
    headers: { 'content-type': 'text/plain' },
  });
  t.equal(text.status, 415);
  t.equal(text.headers.accept, 'multipart/form-data');
  t.equal(await messageCount(), messagesBefore, 'no message stored');

  const before = await stored();
  const tooBig = await upload(
    server,
    { from: 'acme', to: 'globex' },
    { name: 'big.bin', content: Buffer.alloc(64 * 1024 * 1024 + 1, 7) },
  );
  t.equal(tooBig.status, 413);
  t.same(tooBig.body.error, {
    code: 'PAYLOAD_TOO_LARGE',
    message: 'The file is larger than the limit of 64 MiB',
  });
  t.same(await stored(), before, 'the partial file is removed');
  const exact = await upload(
    server,
    { from: 'acme', to: 'globex' },
    { name: 'exact.bin', content: Buffer.alloc(64 * 1024 * 1024, 7) },
  );
  t.equal(exact.status, 201, 'exactly 64 MiB is accepted');
  t.equal(exact.body.data.payloads.unpacked.size_bytes, 64 * 1024 * 1024);
  await waitForMessage(server, exact.body.data.id, (m) => m.status === 'Delivered', 'the big file delivered');
});

t.test('up to 64 KiB is kept inline, one byte more goes to the store; both arrive whole', async (t) => {
  for (const [size, inStore] of [
    [64 * 1024, false],
    [64 * 1024 + 1, true],
  ] as const) {
    const content = Buffer.alloc(size);
    for (let i = 0; i < size; i++) content[i] = (i * 7 + (i >> 8)) & 0xff;
    const made = await upload(server, { from: 'acme', to: 'globex' }, { name: `edge-${size}.bin`, content });
    t.equal(made.status, 201);
    const id = made.body.data.id as string;
    const [row] = await sql(
      server.db.url,
      `select size_bytes::int as size, content is not null as inline from payload where message_id = $1`,
      [id],
    );
    t.same(row, { size, inline: !inStore }, `${size} bytes: inline ${!inStore}`);
    t.equal(
      (await readdir(storeDir)).includes(id),
      inStore,
      `${size} bytes: ${inStore ? 'a file in' : 'nothing in'} the store`,
    );
    await waitForMessage(server, id, (m) => m.status === 'Delivered', `${size} bytes delivered`);
    t.ok(
      (await readFile(path.join(dir, 'out', 'globex', `edge-${size}.bin`))).equals(content),
      'written whole',
    );
    const download = await server.call('GET', `/api/v1/messages/${id}/payload?stage=unpacked`);
    t.equal(download.status, 200);
    t.ok(download.bytes.equals(content), 'downloaded whole');
  }
});
