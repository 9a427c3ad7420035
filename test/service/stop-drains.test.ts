// Covers a stop that drains and always ends, against real `pier serve` processes: after SIGTERM the port stays open,
// GET /ready answers 503 draining and a new API request 503 NOT_READY with Retry-After, while an upload in flight
// finishes with 201 and its message is stored; a silent TCP connection and an event stream that does not reconnect
// (it gets a final `stopping` event) do not hold an idle server, which stops in about a second; and an AS2 receiver
// holding a POST whose body never comes and one with an invalid chunk size stops by itself, well within
// PIER_SHUTDOWN_TIMEOUT, its thread never ended by force.
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import t, { type Test } from 'tap';
import { createTestDatabase, sql } from '../helpers/database.js';
import { form, tempDir } from '../helpers/flow.js';
import { freePort } from '../helpers/free-port.js';
import { mustOn, partiesOn, spawnPier, type PierProcess } from '../helpers/process.js';

const shutdownTimeoutSeconds = 30;

async function start(t: Test, name: string): Promise<{ pier: PierProcess; db: { url: string } }> {
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const dir = await tempDir(t, `pier-stop-${name}-`);
  const pier = await spawnPier(t, {
    databaseUrl: db.url,
    dataDir: path.join(dir, 'data'),
    cwd: dir,
    env: { PIER_SHUTDOWN_TIMEOUT: String(shutdownTimeoutSeconds) },
  });
  return { pier, db };
}

/** SIGTERM, then how long until the process exited, and its exit code. */
async function stopTimed(pier: PierProcess): Promise<{ ms: number; code: number | null }> {
  const began = Date.now();
  const exited = new Promise<number | null>((resolve) => pier.child.once('exit', (code) => resolve(code)));
  pier.child.kill('SIGTERM');
  const code = await exited;
  return { ms: Date.now() - began, code };
}

const port = (pier: PierProcess) => Number(new URL(pier.url).port);

t.test(
  'an idle server stops in about a second, whatever a silent client and an event stream do',
  async (t) => {
    const { pier } = await start(t, 'idle');
    // A connection that never sends a request, as a browser's preconnect or a port scan opens.
    const silent = net.connect(port(pier), '127.0.0.1');
    silent.on('error', () => {});
    await new Promise((resolve) => silent.once('connect', resolve));
    // An event stream whose client reads and never reconnects.
    const events: string[] = [];
    const streamed = new Promise<void>((resolve) => {
      http.get(`${pier.url}/api/v1/events`, (response) => {
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => events.push(chunk));
        response.on('end', resolve);
        response.on('error', () => resolve());
      });
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stopped = await stopTimed(pier);
    t.equal(stopped.code, 0, 'exit code 0');
    t.ok(stopped.ms < 3_000, `stopped in ${stopped.ms} ms (deadline ${shutdownTimeoutSeconds} s)`);
    await streamed;
    t.match(
      events.join(''),
      /event: stopping\ndata: \{"reason":"the server is stopping","retry_after_seconds":10\}/,
    );
    t.ok(
      pier.logLines.some((l) => l.msg === 'pier stopped'),
      'pier stopped',
    );
  },
);

t.test('while draining: the port answers 503, an upload in flight completes and is stored', async (t) => {
  const { pier, db } = await start(t, 'upload');
  const dir = await tempDir(t, 'pier-stop-upload-out-');
  await partiesOn(pier);
  await mustOn(pier, '/plugins/configs?type=file-writer', { name: 'out', directory: dir });
  const body = form(
    { from: 'acme', to: 'globex', target: 'out' },
    { name: 'late.edi', content: 'x'.repeat(200_000) },
  );
  let request: http.ClientRequest | undefined;
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    request = http.request(
      `${pier.url}/api/v1/messages`,
      { method: 'POST', headers: { ...body.headers, 'content-length': String(body.payload.length) } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (c: string) => (text += c));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    request.on('error', reject);
  });
  // Half the body now, the rest once the stop has begun.
  request!.write(body.payload.subarray(0, 100_000));
  await new Promise((resolve) => setTimeout(resolve, 300));
  const exited = new Promise<number | null>((resolve) => pier.child.once('exit', (c) => resolve(c)));
  pier.child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 500));
  const ready = await fetch(`${pier.url}/ready`);
  t.equal(ready.status, 503, '/ready answers 503');
  t.match(await ready.json(), { status: 'draining' });
  const other = await fetch(`${pier.url}/api/v1/organizations`);
  t.equal(other.status, 503, 'a new request is answered 503');
  t.equal(other.headers.get('retry-after'), '10');
  t.match(await other.json(), { error: { code: 'NOT_READY' } });
  request!.end(body.payload.subarray(100_000));
  const done = await answer;
  t.equal(done.status, 201, `the upload in flight is answered 201: ${done.body}`);
  t.equal(await exited, 0, 'exit code 0 once the upload is done');
  const stored = await sql(
    db.url,
    "select m.file_name, p.size_bytes::int as size_bytes from message m join payload p on p.message_id = m.id where m.file_name = 'late.edi' and p.stage = 'unpacked'",
  );
  t.same(stored, [{ file_name: 'late.edi', size_bytes: 200_000 }], 'the message and its document are stored');
});

t.test('a receiver holding stalled AS2 requests stops by itself, within the deadline', async (t) => {
  const { pier } = await start(t, 'as2');
  const as2Port = await freePort();
  await mustOn(pier, '/plugins/configs?type=as2-receiver', {
    name: 'in',
    host: '127.0.0.1',
    port: as2Port,
    path: '/as2',
  });
  // A POST whose Content-Length promises more than comes, and one with an invalid chunk size.
  const stalled = net.connect(as2Port, '127.0.0.1');
  stalled.on('error', () => {});
  stalled.write(
    'POST /as2 HTTP/1.1\r\nHost: x\r\nAS2-From: A\r\nAS2-To: B\r\nMessage-ID: <s@x>\r\n' +
      'Content-Type: application/edi-x12\r\nContent-Length: 100000\r\n\r\nISA*',
  );
  const chunked = net.connect(as2Port, '127.0.0.1');
  chunked.on('error', () => {});
  chunked.write(
    'POST /as2 HTTP/1.1\r\nHost: x\r\nAS2-From: A\r\nAS2-To: B\r\nMessage-ID: <c@x>\r\n' +
      'Content-Type: application/edi-x12\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nISA*\r\n',
  );
  await new Promise((resolve) => setTimeout(resolve, 500));
  const stopped = await stopTimed(pier);
  t.equal(stopped.code, 0, 'exit code 0');
  t.ok(stopped.ms < 10_000, `stopped in ${stopped.ms} ms (deadline ${shutdownTimeoutSeconds} s)`);
  t.notOk(
    pier.logLines.some((l) => /did not stop in time/.test(l.msg)),
    'no instance was ended by force',
  );
  stalled.destroy();
  chunked.destroy();
});
