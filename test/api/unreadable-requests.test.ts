// Covers requests Node's HTTP parser refuses before a route sees them, on a listening server: a
// body cut short by a half-close, headers larger than the server reads, and bytes that are not
// HTTP/1.1 each get their status and the error envelope (not fastify's own body), the connection
// closes, and nothing was stored.
import { once } from 'node:events';
import { connect } from 'node:net';
import t from 'tap';
import { sql } from '../helpers/database.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t, { developerBuild: true, listen: true });
const { port } = new URL(server.url!);

/** Writes `request` raw, half-closes the connection, and reads the answer until the server closes. */
async function raw(request: string): Promise<{ status: number; body: unknown }> {
  const socket = connect(Number(port), '127.0.0.1');
  await once(socket, 'connect');
  let text = '';
  socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
  const closed = once(socket, 'close');
  socket.end(request);
  await closed;
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1]);
  return { status, body: JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) };
}

/** The answer a refusal must be: its status and the error envelope. */
function refusal(status: number, code: string, message: string, details?: Record<string, string>) {
  return { status, body: { data: null, error: { code, message, ...(details ? { details } : {}) } } };
}

t.test('a body cut short by a half-close: 400, the body ended early, no organization made', async (t) => {
  const body = JSON.stringify({ name: 'half-sent' });
  const answer = await raw(
    `POST /api/v1/organizations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${body.length + 10}\r\n\r\n${body}`,
  );
  t.same(
    answer,
    refusal(400, 'INVALID_INPUT', 'Invalid request body', { body: 'The request body ended early' }),
  );
  t.same(await sql(server.db.url, `select name from organization where name = 'half-sent'`), []);
});

t.test('headers larger than the server reads: 431 HEADERS_TOO_LARGE', async (t) => {
  const answer = await raw(
    `GET /api/v1/organizations HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: ${'x'.repeat(20_000)}\r\n\r\n`,
  );
  t.same(answer, refusal(431, 'HEADERS_TOO_LARGE', 'The request headers are larger than the server reads'));
});

t.test('bytes that are not HTTP/1.1: 400 INVALID_INPUT naming the request', async (t) => {
  const answer = await raw('HELLO THERE\r\n\r\n');
  t.same(
    answer,
    refusal(400, 'INVALID_INPUT', 'Invalid request', { request: 'The request is not valid HTTP/1.1' }),
  );
});

t.test('the server goes on answering', async (t) => {
  const r = await fetch(`${server.url}/api/v1/organizations`);
  t.equal(r.status, 200);
});
