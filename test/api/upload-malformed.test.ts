// Covers malformed multipart bodies and too many parts on both upload paths (POST /messages, POST /certificates): 400 INVALID_INPUT naming the problem, nothing stored.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { sql } from '../helpers/database.js';
import { must, parties, tempDir } from '../helpers/flow.js';
import { startTestServer, type Answer } from '../helpers/server.js';

const server = await startTestServer(t);
const dir = await tempDir(t);
await parties(server);
await must(server, '/plugins/configs?type=file-writer', { name: 'out', directory: path.join(dir, 'out') });

const boundary = 'pierTestBoundary';
const header = (name: string | undefined, file?: string) =>
  `Content-Disposition: form-data${name === undefined ? '' : `; name="${name}"`}${file ? `; filename="${file}"` : ''}\r\n`;
const part = (name: string | undefined, value: string, file?: string) =>
  `--${boundary}\r\n${header(name, file)}${file ? 'Content-Type: application/octet-stream\r\n' : ''}\r\n${value}\r\n`;
const close = `--${boundary}--\r\n`;

function post(url: string, payload: string, contentBoundary = boundary): Promise<Answer> {
  return server.call('POST', `/api/v1${url}`, {
    payload,
    headers: {
      'content-type': `multipart/form-data; boundary=${contentBoundary}`,
      'x-requested-with': 'XMLHttpRequest',
    },
  });
}

const storeDir = path.join(server.dataDir, 'payloads');
const stored = async () => ({
  files: (await readdir(storeDir).catch(() => [])).length,
  payloads: (await sql(server.db.url, 'select count(*)::int as n from payload'))[0]!.n as number,
  messages: (await sql(server.db.url, 'select count(*)::int as n from message'))[0]!.n as number,
  certificates: (await sql(server.db.url, 'select count(*)::int as n from certificate'))[0]!.n as number,
});

const messageFields = part('from', 'acme') + part('to', 'globex') + part('target', 'out');
const malformed: [string, string, string?][] = [
  ['a boundary that does not match', messageFields + part('file', 'abc', 'a.txt') + close, 'otherBoundary'],
  ['a body that is not multipart', 'just some text, no parts at all'],
  ['no closing boundary', messageFields + part('file', 'abc', 'a.txt')],
  ['a body cut inside a part', messageFields + `--${boundary}\r\n${header('file', 'a.txt')}\r\nabc`],
  ['a part header that never ends', `--${boundary}\r\nContent-Disposition: form-data; name="from"`],
];

for (const url of ['/messages', '/certificates']) {
  t.test(`${url}: every malformed body is 400 INVALID_INPUT and stores nothing`, async (t) => {
    const before = await stored();
    for (const [what, body, otherBoundary] of malformed) {
      const answer = await post(url, body, otherBoundary);
      t.equal(answer.status, 400, `${what}: ${answer.raw}`);
      t.equal(answer.body.error?.code, 'INVALID_INPUT', what);
      t.match(answer.body.error?.details?.body, /^The multipart form cannot be read: \S/, what);
    }
    t.same(await stored(), before, 'nothing stored');
  });
}

t.test('POST /messages: three files in a small form is 400 naming the file field, not 413', async (t) => {
  const before = await stored();
  const body =
    messageFields +
    part('file', 'a', 'a.txt') +
    part('file', 'b', 'b.txt') +
    part('file', 'c', 'c.txt') +
    close;
  t.ok(body.length < 700, 'a small body');
  const answer = await post('/messages', body);
  t.equal(answer.status, 400, answer.raw);
  t.equal(answer.body.error.code, 'INVALID_INPUT');
  t.match(answer.body.error.details, { file: /Send one file|Too many files/ });
  t.notMatch(answer.raw, /larger than/);
  t.same(await stored(), before, 'nothing stored');
});

t.test('POST /messages: too many text parts is 400 naming the part', async (t) => {
  let body = messageFields + part('file', 'a', 'a.txt');
  for (let i = 0; i < 12; i++) body += part(`extra${i}`, 'x');
  const answer = await post('/messages', body + close);
  t.equal(answer.status, 400, answer.raw);
  t.equal(answer.body.error.code, 'INVALID_INPUT');
  t.match(answer.body.error.details, { extra0: 'Unknown property' });
  t.notOk('undefined' in answer.body.error.details);
});

t.test('POST /certificates: three files is 400 naming the field, not 413', async (t) => {
  const before = await stored();
  const body =
    part('certificate', 'a', 'a.pem') +
    part('private_key', 'b', 'b.pem') +
    part('certificate', 'c', 'c.pem') +
    close;
  const answer = await post('/certificates', body);
  t.equal(answer.status, 400, answer.raw);
  t.equal(answer.body.error.code, 'INVALID_INPUT');
  t.match(answer.body.error.details, { certificate: /Too many files/ });
  t.same(await stored(), before, 'nothing stored');
});

t.test('an unnamed part is reported under unnamed_part, never "undefined"', async (t) => {
  for (const url of ['/messages', '/certificates']) {
    const answer = await post(url, messageFields + part(undefined, 'x') + part('file', 'a', 'a.txt') + close);
    t.equal(answer.status, 400, answer.raw);
    t.notOk('undefined' in answer.body.error.details, url);
    t.match(answer.body.error.details, { unnamed_part: /without a name/ }, url);
  }
});

t.test('a part named __proto__ is refused in the envelope', async (t) => {
  const answer = await post('/messages', part('__proto__', 'x') + messageFields + close);
  t.equal(answer.status, 400, answer.raw);
  t.equal(answer.body.error.code, 'INVALID_INPUT');
  t.match(answer.body.error.details._form, /__proto__/);
});
