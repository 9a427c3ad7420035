// Covers postAs2's early answers: a server (a proxy asking for credentials, a partner refusing a
// body too large) that answers before it read the whole request and closes the connection with
// the rest unread, which makes the kernel reset it. The answer was on the wire before the reset:
// the delivery reports it (407, 413), not the reset ("read ECONNRESET").
import http from 'node:http';
import net from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { fileRange, sourceOf, type Source } from '../as2/stream/source.js';
import { postAs2 } from './post.js';

/**
 * A server that reads each request's head only, and answers with `act` (on the connection, the
 * head, and how many requests came before).
 */
async function rawPeer(
  act: (socket: net.Socket, head: string, before: number) => void,
): Promise<{ url: URL; heads: string[] }> {
  const heads: string[] = [];
  const server = net.createServer((socket) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString('latin1');
      const end = seen.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      socket.pause();
      heads.push(seen.slice(0, end).toLowerCase());
      if (end + 4 < seen.length) socket.unshift(Buffer.from(seen.slice(end + 4), 'latin1'));
      act(socket, heads.at(-1)!, heads.length - 1);
    };
    socket.on('data', onData);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as net.AddressInfo;
  return { url: new URL(`http://127.0.0.1:${port}/as2`), heads };
}

/** A server that answers `head` to the request's head, and resets or closes with the rest unread. */
const earlyAnswer = (head: string, end: 'reset' | 'close') =>
  rawPeer((socket) =>
    socket.write(head, () => (end === 'reset' ? socket.resetAndDestroy() : socket.destroy())),
  );

/** A body of `size` bytes in a file of a temporary folder, read a slice at a time as the sender reads a large one. */
async function fileBody(t: Test, size: number): Promise<Source> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pier-post-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'body');
  await writeFile(file, Buffer.alloc(size, 'y'));
  return sourceOf(fileRange(file, size));
}

/** A kept-alive agent of the test's own, as each sender thread has. */
function agentOf(t: Test): http.Agent {
  const agent = new http.Agent({ keepAlive: true });
  t.teardown(() => agent.destroy());
  return agent;
}

/** Posts `body` as the sender does, with its length. */
const post = (url: URL, body: Source, agent: http.Agent) =>
  postAs2(
    url,
    { 'content-type': 'application/pkcs7-mime', 'content-length': String(body.length) },
    body,
    10_000,
    agent,
  );

const proxyRefusal =
  'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="proxy"\r\n' +
  'Content-Type: text/plain\r\nContent-Length: 21\r\nConnection: close\r\n\r\nCredentials required.';

t.test('a small request answered and reset at once: the answer', async (t) => {
  const peer = await earlyAnswer(proxyRefusal, 'reset');
  const agent = agentOf(t);
  const body = sourceOf(Buffer.alloc(2000, 'x'));
  for (let round = 0; round < 20; round++) {
    const answer = await post(peer.url, body, agent);
    t.equal(answer.status, 407, `round ${round}`);
    t.equal(answer.body.toString(), 'Credentials required.');
  }
  t.equal(peer.heads.length, 20, 'each request once: an answer is not posted again');
});

t.test('a large body refused before it was read: the answer, not the reset', async (t) => {
  const tooLarge = 'HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n';
  const body = await fileBody(t, 32 * 1024 * 1024);
  for (const end of ['close', 'reset'] as const) {
    const peer = await earlyAnswer(tooLarge, end);
    const answer = await post(peer.url, body, agentOf(t));
    t.equal(answer.status, 413, `closed by ${end}`);
    t.notMatch(peer.heads[0], 'expect:', 'first as it was');
    // Posted again asking first when the reset came before the answer could be read.
    t.ok(peer.heads.length <= 2, 'at most once more');
  }
});

t.test('a receipt cut off by a reset is an error, not a receipt', async (t) => {
  const cut = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5000\r\n\r\nonly part of it';
  const peer = await earlyAnswer(cut, 'reset');
  await t.rejects(post(peer.url, sourceOf(Buffer.from('hello')), agentOf(t)), /ECONNRESET|aborted/);
});

t.test('posted again asking first: the body follows 100 Continue, or after a second without', async (t) => {
  const size = 8 * 1024 * 1024;
  const body = await fileBody(t, size);
  for (const continues of [true, false]) {
    // The first request is reset under its body with no answer; the second is read whole.
    const peer = await rawPeer((socket, _head, before) => {
      if (before === 0) {
        socket.resetAndDestroy();
        return;
      }
      if (continues) socket.write('HTTP/1.1 100 Continue\r\n\r\n');
      let read = 0;
      socket.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read === size)
          socket.end(`HTTP/1.1 200 OK\r\nContent-Length: ${String(read).length}\r\n\r\n${read}`);
      });
      socket.resume();
    });
    const started = Date.now();
    const answer = await post(peer.url, body, agentOf(t));
    const ms = Date.now() - started;
    t.equal(answer.status, 200, continues ? 'with 100 Continue' : 'without');
    t.equal(answer.body.toString(), String(size), 'the whole body arrived');
    t.match(peer.heads[1], 'expect: 100-continue');
    if (continues) t.ok(ms < 1000, `no wait for the second (${ms} ms)`);
    else t.ok(ms >= 1000, `sent after the second (${ms} ms)`);
  }
});
