// Covers file-poller → http-poster against a real local HTTP server: 2xx delivered; 500s retried with backoff, then success; 4xx failed at once; basic auth and configured headers sent, never shown.
import { createServer, type IncomingMessage } from 'node:http';
import { mkdir, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import t from 'tap';
import { fileFlow, must, parties, tempDir, waitForMessages, type Message } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}
const received: Received[] = [];
/** Answers for the coming requests, in order; 200 once they run out. */
const answers: number[] = [];
const partner = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (c: Buffer) => chunks.push(c));
  request.on('end', () => {
    received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
    response.statusCode = answers.shift() ?? 200;
    response.end('ok');
  });
});
await new Promise<void>((resolve) => partner.listen(0, '127.0.0.1', resolve));
t.teardown(() => new Promise<void>((resolve) => partner.close(() => resolve())));
const url = `http://127.0.0.1:${(partner.address() as AddressInfo).port}/inbound`;

const server = await startTestServer(t);
const dir = await tempDir(t);
await parties(server);
await mkdir(path.join(dir, 'in', 'globex'), { recursive: true });
await must(server, '/plugins/configs?type=http-poster', {
  name: 'erp',
  url,
  http_basic_username: 'pier',
  http_basic_password: 'post-secret-pw',
  http_headers: [{ name: 'X-Api-Key', value: 'key-secret-value' }],
  content_type: 'application/edifact',
  retry_interval: 1,
  retry_backoff: 2,
  max_attempts: 4,
});
await fileFlow(server, dir, { poller: { polling_interval: 1 }, to: '*', target: 'erp' });

async function send(name: string, content: string) {
  await writeFile(path.join(dir, 'in', 'globex', name), content);
}
const byName = (name: string) => (l: Message[]) =>
  l.find((m) => m.file_name === name && m.stage === 'settled');

t.test('a 2xx answer is delivered; the request carries the payload and the configured headers', async (t) => {
  await send('first.edi', 'UNB+FIRST');
  const list = await waitForMessages(server, '', (l) => !!byName('first.edi')(l), 'first delivered');
  const m = byName('first.edi')(list)!;
  t.match(m, { status: 'Delivered', deliveries: [{ target: 'erp', state: 'delivered', attempts: 1 }] });
  const request = received.find((r) => r.body === 'UNB+FIRST')!;
  t.ok(request, 'the partner got the payload');
  t.equal(request.headers.authorization, `Basic ${Buffer.from('pier:post-secret-pw').toString('base64')}`);
  t.equal(request.headers['x-api-key'], 'key-secret-value');
  t.equal(request.headers['content-type'], 'application/edifact');
  t.equal(request.headers['x-pier-from'], 'acme');
  t.equal(request.headers['x-pier-to'], 'globex');
  t.match(request.headers['content-disposition'], /filename="first.edi"/);
  t.match(request.headers['user-agent'], /^pier\/\d/);
  const shown = await server.call('GET', `/api/v1/messages/${m.id}`);
  t.notMatch(shown.raw, /post-secret-pw|key-secret-value/, 'secrets never appear in a message');
});

t.test('500 answers are retried with a growing wait, then the delivery succeeds', async (t) => {
  answers.push(500, 503);
  const before = received.length;
  await send('second.edi', 'UNB+SECOND');
  const retrying = await waitForMessages(
    server,
    'status=Retrying',
    (l) => l.some((m) => m.file_name === 'second.edi'),
    'retrying',
  );
  const r = retrying.find((m) => m.file_name === 'second.edi');
  t.match(r.deliveries[0], { state: 'retrying', attempts: 1 });
  t.match(r.deliveries[0].last_error, /answered HTTP 500/);
  t.ok(r.deliveries[0].next_attempt_at, 'a retrying delivery shows when it is tried next');
  const list = await waitForMessages(
    server,
    '',
    (l) => !!byName('second.edi')(l),
    'second delivered',
    20_000,
  );
  const m = byName('second.edi')(list);
  const history = m.history as { kind: string; new_state?: string; text?: string }[];
  t.equal(m.status, 'Delivered');
  t.equal(m.deliveries[0]!.attempts, 3, 'two failed attempts, then success');
  t.equal(received.length - before, 3);
  const states = history.filter((h) => h.kind === 'delivery_changed').map((h) => h.new_state);
  t.same(states, [
    'queued',
    'delivering',
    'retrying',
    'queued',
    'delivering',
    'retrying',
    'queued',
    'delivering',
    'delivered',
  ]);
  const waits = history.filter((h) => h.new_state === 'retrying').map((h) => h.text);
  t.match(waits[0], /HTTP 500.*attempt 2 at/);
  t.match(waits[1], /HTTP 503.*attempt 3 at/);
});

t.test('a 4xx answer fails at once, and the retry limit holds', async (t) => {
  answers.push(404);
  await send('third.edi', 'UNB+THIRD');
  const list = await waitForMessages(
    server,
    'status=Error',
    (l) => l.some((m) => m.file_name === 'third.edi'),
    'failed',
  );
  const m = list.find((x) => x.file_name === 'third.edi');
  t.match(m.deliveries[0], { state: 'failed', attempts: 1 });
  t.match(m.deliveries[0].last_error, /answered HTTP 404 Not Found/);
  const stats = await server.call('GET', '/api/v1/stats');
  t.equal(stats.body.data.failed_last_24h, 1);
});
